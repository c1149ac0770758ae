// The topic map page (topics_map_page.html): draws the map JSON on a canvas. A static file,
// not an inline script, so the pages pass a Content-Security-Policy without 'unsafe-inline'.
(() => {
  const canvas = document.getElementById("topic-map");
  const tip = document.getElementById("map-tip");
  const status = document.getElementById("map-status");
  const legend = document.getElementById("map-legend");
  const query = canvas.dataset.query, lang = canvas.dataset.lang;
  const W = 900, H = 640, PAD = 8, CELL = 16, HOVER_PX = 7;
  const ratio = window.devicePixelRatio || 1;
  canvas.width = W * ratio; canvas.height = H * ratio;
  const ctx = canvas.getContext("2d");
  ctx.scale(ratio, ratio);
  let data = null, px = null, py = null, grid = null, matched = null;

  function layout() {
    const n = data.count;
    px = new Float32Array(n); py = new Float32Array(n);
    const cols = Math.ceil(W / CELL), rows = Math.ceil(H / CELL);
    grid = Array.from({length: cols * rows}, () => []);
    for (let i = 0; i < n; i++) {
      px[i] = PAD + data.x[i] * (W - 2 * PAD);
      py[i] = H - PAD - data.y[i] * (H - 2 * PAD);
      grid[Math.floor(py[i] / CELL) * cols + Math.floor(px[i] / CELL)].push(i);
    }
    grid.cols = cols; grid.rows = rows;
  }

  function draw() {
    const started = performance.now();
    ctx.clearRect(0, 0, W, H);
    const n = data.count;
    const dim = matched !== null;
    // Source-labeled dots opaque, predicted ones lighter; with a search, the others grey below the matches.
    const dot = (i, size) => ctx.fillRect(px[i] - size / 2, py[i] - size / 2, size, size);
    if (!dim) {
      for (let i = 0; i < n; i++) {
        ctx.fillStyle = data.colors[data.area[i]]; ctx.globalAlpha = data.predicted[i] ? 0.45 : 0.95; dot(i, 2);
      }
    } else {
      ctx.fillStyle = "#d8d8d8"; ctx.globalAlpha = 0.5;
      for (let i = 0; i < n; i++) if (!matched.has(i)) dot(i, 2);
      ctx.globalAlpha = 0.95;
      for (const i of matched) { ctx.fillStyle = data.colors[data.area[i]]; dot(i, 4); }
    }
    ctx.globalAlpha = 1;
    canvas.dataset.drawMs = (performance.now() - started).toFixed(1);
    canvas.dataset.points = String(n);
  }

  function nearest(x, y) {
    const cx = Math.floor(x / CELL), cy = Math.floor(y / CELL);
    let best = -1, bestD = HOVER_PX * HOVER_PX;
    for (let gy = cy - 1; gy <= cy + 1; gy++) {
      for (let gx = cx - 1; gx <= cx + 1; gx++) {
        if (gx < 0 || gy < 0 || gx >= grid.cols || gy >= grid.rows) continue;
        for (const i of grid[gy * grid.cols + gx]) {
          if (matched !== null && !matched.has(i)) continue;
          const d = (px[i] - x) ** 2 + (py[i] - y) ** 2;
          if (d < bestD) { bestD = d; best = i; }
        }
      }
    }
    return best;
  }

  function pointAt(event) {
    const box = canvas.getBoundingClientRect();
    return nearest(event.clientX - box.left, event.clientY - box.top);
  }

  canvas.addEventListener("mousemove", (event) => {
    if (!data) return;
    const i = pointAt(event);
    if (i < 0) { tip.hidden = true; canvas.style.cursor = "default"; return; }
    const area = data.areas[data.area[i]] + (data.predicted[i] ? " (" + canvas.dataset.predictedLabel + ")" : "");
    tip.textContent = data.titles[i] + " — " + area;
    tip.style.left = (px[i] + 10) + "px"; tip.style.top = (py[i] + 10) + "px";
    tip.hidden = false; canvas.style.cursor = "pointer";
    canvas.dataset.hoverId = data.ids[i];
  });
  canvas.addEventListener("mouseleave", () => { tip.hidden = true; });
  canvas.addEventListener("click", (event) => {
    if (!data) return;
    const i = pointAt(event);
    if (i >= 0) window.location.href = "/paper/" + encodeURIComponent(data.ids[i]) + "?lang=" + encodeURIComponent(lang);
  });

  function showLegend() {
    const counts = new Array(data.areas.length).fill(0);
    for (const a of data.area) counts[a]++;
    legend.replaceChildren(...data.areas.map((name, a) => {
      const item = document.createElement("li");
      const swatch = document.createElement("span");
      swatch.style.cssText = "display:inline-block;width:12px;height:12px;margin-right:6px;background:" + data.colors[a];
      item.append(swatch, document.createTextNode(name + " (" + counts[a].toLocaleString() + ")"));
      return item;
    }));
  }

  const url = "/api/topics/map" + (query ? "?q=" + encodeURIComponent(query) : "");
  fetch(url).then((response) => response.json().then((body) => ({response, body}))).then(({response, body}) => {
    // Errors are {error, message}.
    // not ready yet (409): the page's own words, in its language, not the API's (which names a command)
    if (!response.ok) {
      status.textContent = (response.status === 409 && canvas.dataset.notReady) || body.message || response.statusText;
      canvas.dataset.error = body.error || "";
      return;
    }
    data = body;
    matched = body.matches ? new Set(body.matches) : null;
    layout(); draw(); showLegend();
    status.textContent = data.count.toLocaleString() + (matched ? " · " + matched.size.toLocaleString() + " " + canvas.dataset.matchesLabel : "");
    canvas.dataset.ready = "1";
  }).catch((error) => { status.textContent = String(error); });
})();

// The trends chart is drawn by `papersift topics map`; until then the server answers 409
// (its message is the map status above), so the broken image is hidden.
(() => {
  const trends = document.getElementById("topic-trends");
  if (!trends) return;
  const hide = () => { trends.hidden = true; };
  trends.addEventListener("error", hide);
  if (trends.complete && trends.naturalWidth === 0) hide();
})();
