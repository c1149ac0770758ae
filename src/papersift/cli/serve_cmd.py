"""papersift serve / quickstart / bench web: the page and the JSON API over uvicorn."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from papersift.cli.app import DataDirOption, JsonOption, app, console, data_dir_of, emit_report, err_console, fail
from papersift.cli.bench_cmd import bench_app
from papersift.cli.ingest_cmd import _print_summary, _progress
from papersift.config import shared_data_dir
from papersift.models import STATIC_MODEL
from papersift.store import Store

if TYPE_CHECKING:
    from papersift.background import Stage

HostOption = Annotated[str, typer.Option("--host", help="Address to bind; 127.0.0.1 keeps it on this machine.")]
PortOption = Annotated[int, typer.Option("--port", min=1, max=65535, help="TCP port.")]
WritesOption = Annotated[bool, typer.Option("--enable-writes", help="Allow POST /api/papers (needs a token).")]
TokenOption = Annotated[str | None, typer.Option(
    "--write-token", envvar="PAPERSIFT_WRITE_TOKEN", help="Bearer token for write endpoints.")]
AllowedHostOption = Annotated[list[str] | None, typer.Option(
    "--allowed-host", help="Host header value to answer besides the bind address's (repeatable; '*' any), "
                           "e.g. the name of a reverse proxy in front of this server.")]
AccountsOption = Annotated[bool, typer.Option(
    "--accounts", help="Users log in (papersift users ...); each sees and changes only their own library.")]
SecureCookiesOption = Annotated[bool, typer.Option(
    "--secure-cookies", help="Mark the session cookie Secure (behind an https proxy that forwards plain http).")]
ForwardedAllowIpsOption = Annotated[str | None, typer.Option(
    "--forwarded-allow-ips", metavar="IPS",
    help="Comma-separated addresses (or networks) of reverse proxies whose X-Forwarded-For / X-Forwarded-Proto "
         "are trusted; off by default: every request is the address it came from.")]
CORPUS_FILES = ("papers.jsonl.gz", "papers_title_only.jsonl.gz")
SAMPLE_CORPUS = Path(__file__).resolve().parents[1] / "sample_corpus"  # shipped in the package


def _run_server(data_dir: Path, host: str, port: int, enable_writes: bool, write_token: str | None,
                service=None, allowed_hosts: list[str] | None = None, accounts: bool = False,
                secure_cookies: bool = False, sign_in_link: bool = False,
                forwarded_allow_ips: str | None = None) -> None:
    import uvicorn

    from papersift.api.app import MIN_TOKEN_CHARS
    from papersift.api.security import ANY_HOST, allowed_hosts_for
    from papersift.server import create_app

    if enable_writes and not write_token:
        fail("--enable-writes needs --write-token (or PAPERSIFT_WRITE_TOKEN)")
    if enable_writes and write_token is not None and len(write_token) < MIN_TOKEN_CHARS:
        fail(f"--write-token must be at least {MIN_TOKEN_CHARS} characters (got {len(write_token)})")
    hosts = allowed_hosts_for(host, allowed_hosts or ())
    if accounts:
        from rich.markup import escape

        from papersift import extras

        if not extras.available("accounts"):
            fail(escape("--accounts needs papersift[accounts] (argon2-cffi): pip install 'papersift[accounts]'"))
    if host not in ("127.0.0.1", "localhost", "::1"):
        err_console.print(f"[yellow]warning:[/] serving on {host}: other machines can reach this server")
        if not accounts:
            err_console.print("[yellow]warning:[/] without --accounts whoever reaches it reads the library and saved searches")
        if hosts == [ANY_HOST]:
            err_console.print("[yellow]warning:[/] any Host header is answered; name this server's public "
                              "name with --allowed-host to refuse the rest (DNS rebinding)")
    try:
        server_app = create_app(data_dir, service=service, enable_writes=enable_writes, write_token=write_token,
                                allowed_hosts=hosts, accounts=accounts, secure_cookies=secure_cookies)
    except FileNotFoundError as missing:
        fail(f"{missing}\n(run 'papersift quickstart --data-dir {data_dir}' to ingest and index a corpus)")
    console.print(f"papersift: http://{host}:{port}/  (API docs at /docs; where the data and the background work "
                  "stand: /status, on this machine; Ctrl-C stops)", highlight=False, soft_wrap=True)
    if enable_writes and not accounts:
        if sign_in_link:  # quickstart: its own token, handed over as notebook servers do
            console.print(f"open http://{host}:{port}/signin?token={write_token} to tag papers, like them and save "
                          "searches in this browser (the link signs it in)", highlight=False, soft_wrap=True)
        else:
            console.print(f"sign in once per browser at http://{host}:{port}/signin with the write token", highlight=False)
    from papersift.api.warmup import start_warmup

    started = time.monotonic()
    start_warmup(server_app, lambda warmup: console.print(
        f"papersift: ready in {time.monotonic() - started:.1f} s (indexes, vectors and encoders loaded; /healthz)",
        highlight=False))
    uvicorn.run(server_app, host=host, port=port, log_level="info", access_log=False, log_config=_log_config(),
                **proxy_options(forwarded_allow_ips))


def proxy_options(forwarded_allow_ips: str | None) -> dict:
    """uvicorn's proxy-header settings: forwarded headers trusted only from the proxies the operator
    names. uvicorn's own default trusts them from 127.0.0.1 (and $FORWARDED_ALLOW_IPS), so any local
    client could pick its address with X-Forwarded-For and escape the per-address login limit."""
    allowed = [part.strip() for part in (forwarded_allow_ips or "").split(",") if part.strip()]
    if not allowed:
        return {"proxy_headers": False, "forwarded_allow_ips": ""}
    return {"proxy_headers": True, "forwarded_allow_ips": allowed}


def _log_config() -> dict:
    """uvicorn's own logging, plus papersift's access log (one line a request) on stderr."""
    from uvicorn.config import LOGGING_CONFIG

    config = {**LOGGING_CONFIG, "loggers": dict(LOGGING_CONFIG["loggers"])}
    for name in ("papersift.access", "papersift.api"):
        config["loggers"][name] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return config


@app.command()
def serve(
    data_dir: DataDirOption = None,
    host: HostOption = "127.0.0.1",
    port: PortOption = 8000,
    enable_writes: WritesOption = False,
    write_token: TokenOption = None,
    allowed_host: AllowedHostOption = None,
    accounts: AccountsOption = False,
    secure_cookies: SecureCookiesOption = False,
    forwarded_allow_ips: ForwardedAllowIpsOption = None,
    backend: Annotated[str, typer.Option("--backend", help="embedded (in the data dir) or typesense (a cluster).")] = "embedded",
    nodes: Annotated[str | None, typer.Option("--nodes", envvar="PAPERSIFT_TYPESENSE_NODES", help="typesense: host:port,...")] = None,
    api_key: Annotated[str | None, typer.Option("--api-key", envvar="PAPERSIFT_TYPESENSE_API_KEY", help="typesense: API key.")] = None,
) -> None:
    """Serve the search page (/) and the JSON API (/api, docs at /docs). Read-only by default."""
    resolved = data_dir_of(data_dir)
    if not (resolved / "papers.sqlite3").exists():
        fail(f"no papersift store in {resolved}; run 'papersift ingest' or 'papersift quickstart' first")
    if enable_writes and backend == "typesense":
        fail("--enable-writes with --backend typesense: API writes reach only the data dir's embedded index, not the "
             "cluster; add papers with 'papersift ingest', then 'papersift index --backend typesense'")
    from papersift.cli.cluster_cmd import service_for_backend

    service = service_for_backend(backend, resolved, nodes, api_key)
    _run_server(resolved, host, port, enable_writes, write_token, service, allowed_host, accounts, secure_cookies,
                forwarded_allow_ips=forwarded_allow_ips)


def build_indexes(data_dir: Path, keyword_only: bool = False) -> None:
    """Bring every index up to the store (only what changed is redone); keyword_only: the
    keyword index alone (quickstart's background chain makes the Chinese terms' files)."""
    from papersift.index import lexical, phrasevectors, termlexicon

    with _progress(disable=False) as progress:
        task = progress.add_task("keyword index", total=Store(data_dir, readonly=True).count())
        result = lexical.update(data_dir, lambda count: progress.advance(task, count))
    console.print(f"keyword index: {result.documents:,} papers ({result.seconds:.1f} s)", highlight=False)
    if keyword_only:
        return
    lexicon = termlexicon.build_for_store(data_dir)  # Chinese terms' English readings (docs/crosslingual.md)
    if lexicon is not None:
        console.print(f"term lexicon: {lexicon.phrases:,} phrases ({lexicon.seconds:.1f} s)", highlight=False)
    phrases = phrasevectors.build_for_store(data_dir, log=lambda line: console.print(line, highlight=False))
    if phrases is not None:
        console.print(f"phrase vectors: {phrases.phrases:,} phrases ({phrases.seconds:.1f} s)", highlight=False)


@app.command()
def quickstart(
    data_dir: DataDirOption = None,
    corpus: Annotated[Path | None, typer.Option(
        "--corpus", help="Folder with papers.jsonl.gz (default: ../shared/data/ml_papers).")] = None,
    host: HostOption = "127.0.0.1",
    port: PortOption = 8000,
    no_serve: Annotated[bool, typer.Option("--no-serve", help="Ingest and index, then stop.")] = False,
    embed: Annotated[bool, typer.Option(
        "--embed/--no-embed", help="While serving, embed the papers in the background (semantic coverage grows; resumable).")] = True,
) -> None:
    """Ingest the shared ML corpus if the store is empty, build the indexes, then serve
    (keyword search at once; semantic and hybrid as the background embedding publishes vectors)."""
    from papersift.ingest.pipeline import ingest_paths

    resolved = data_dir_of(data_dir)
    store = Store(resolved)
    if store.count() == 0:
        folder = corpus or shared_data_dir() / "ml_papers"
        files = [folder / name for name in CORPUS_FILES if (folder / name).exists()]
        if not files and corpus is None:  # no shared data on this machine: the sample shipped with papersift
            files = [SAMPLE_CORPUS / name for name in CORPUS_FILES]
            err_console.print(f"no shared corpus in {folder}: serving the sample of 2,212 papers shipped with "
                              "papersift. For the real lists: 'papersift fetch' (OpenReview, arXiv; docs/ingest.md) "
                              "or 'papersift update' with an update.toml (docs/feeds.md), or quickstart --corpus "
                              "FOLDER with papers.jsonl.gz", highlight=False, soft_wrap=True)
        if not files:
            fail(f"no corpus in {folder} (expected {', '.join(CORPUS_FILES)}); pass --corpus")
        console.print(f"ingesting {', '.join(str(path) for path in files)} into {resolved}", highlight=False)
        with _progress(disable=False) as progress:
            task = progress.add_task("ingest", total=None)
            summary = ingest_paths(store, files, on_progress=lambda count: progress.advance(task, count))
        _print_summary(summary)
    else:
        console.print(f"{store.count():,} papers already in {resolved}; skipping ingest", highlight=False)
    store.close()
    # Serving starts after the keyword index; with the background chain the Chinese terms follow it.
    build_indexes(resolved, keyword_only=embed and not no_serve)
    if no_serve:
        return
    embedder = _start_background_embed(resolved) if embed else None
    try:
        # The library works at once for the person at this machine: writes on with a token of this
        # start (or $PAPERSIFT_WRITE_TOKEN), handed over in the sign-in link printed below.
        token = os.environ.get("PAPERSIFT_WRITE_TOKEN") or secrets.token_urlsafe(24)
        _run_server(resolved, host, port, enable_writes=True, write_token=token, sign_in_link=True)
    finally:
        if embedder is not None and embedder.poll() is None:
            os.killpg(embedder.pid, signal.SIGTERM)  # the chain and its current step; caches keep what was done
            embedder.wait(timeout=30)


FIRST_TOPICS = "first topics"  # the words-only predictions, while the vectors are made


def background_stages(data_dir: Path) -> list[Stage]:
    """What quickstart runs behind the server, one after the other (papersift.background):
    every paper's topic from its words first (no vectors needed: Area · Subarea on every hit
    within a minute or so; docs/topics.md), the Chinese terms (term lexicon and phrase vectors: Chinese queries read better once they are
    there; keyword search never waits for them), the library's keyword features (a tag's
    recommendations work from then on), the static first pass (when its model is built: every
    paper gets a vector in about a minute, docs/static-embeddings.md), e5 (vectors and term
    bridge: semantic, hybrid and Chinese queries), the English model (English hybrid queries),
    every paper's topic again with the full model (it reads both), and the topic map's projection
    (the server itself never computes any of it)."""
    from papersift import extras
    from papersift.background import Stage

    cli = [sys.executable, "-c", "from papersift.cli import main; main()"]
    where = ["--data-dir", str(data_dir)]
    # Not required: a corpus with too few labelled papers cannot train it, and the rest must still run.
    stages = [Stage(FIRST_TOPICS, cli + ["topics", "predict", *where, "--words-only"], required=False)
              ] if extras.available("topics") else []
    stages.append(Stage("Chinese terms", cli + ["index", *where]))
    if extras.available("recommend"):
        stages.append(Stage("library features", cli + ["library", "features", *where]))
    if _static_built():  # here rather than in `index`, which needs no model and no extra
        stages.append(Stage("first-pass vectors", cli + ["embed", *where, "--model", STATIC_MODEL]))
    return stages + [Stage("e5 vectors", cli + ["embed", *where]),
                     Stage("English vectors", cli + ["embed", *where, "--model", "all-MiniLM-L6-v2"]),
                     Stage("topics", cli + ["topics", "predict", *where, "--embed-missing"]),
                     Stage("topic map", cli + ["topics", "map", *where])]


def _static_built() -> bool:
    from papersift.models import ModelError, get_spec, is_built

    try:
        return is_built(get_spec(STATIC_MODEL))
    except ModelError:
        return False


def _start_background_embed(data_dir: Path) -> subprocess.Popen:
    """The background stages in a niced child process (papersift.background.run_chain); their
    log goes to DATA_DIR/embed.log, where they stand to DATA_DIR/background.json. A stage that
    fails stops the chain (its error is in the log); a rerun resumes from caches."""
    import orjson

    from papersift.background import LOG_FILE

    stages = orjson.dumps([[stage.name, stage.command, stage.required] for stage in background_stages(data_dir)]).decode()
    console.print(f"preparing Chinese terms, recommendations, vectors and topics in the background (log: "
                  f"{data_dir / LOG_FILE}); semantic coverage grows as vectors are published", highlight=False)
    log = open(data_dir / LOG_FILE, "ab")  # noqa: SIM115 (the child keeps it open: the chain's own errors)
    return subprocess.Popen([sys.executable, "-m", "papersift.background", str(data_dir), stages],
                            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)


@bench_app.command("web")
def bench_web(
    data_dir: DataDirOption = None,
    mode: Annotated[str, typer.Option("--mode", help="keyword, semantic or hybrid.")] = "keyword",
    rounds: Annotated[int, typer.Option("--rounds", min=1, help="Passes over the query set.")] = 3,
    reports_dir: Annotated[Path, typer.Option("--reports-dir", help="Where bench-web.json and bench-web.md go.")] = Path("reports"),
    as_json: JsonOption = False,
) -> None:
    """Server-side latency (p50/p95/p99) of the search page and /api/search on real queries."""
    from papersift.bench.web import default_queries, markdown_report, run_web_bench

    resolved = data_dir_of(data_dir)
    if mode not in ("keyword", "semantic", "hybrid"):
        fail(f"--mode must be keyword, semantic or hybrid, not {mode!r}")
    if not (resolved / "papers.sqlite3").exists():
        fail(f"no papersift store in {resolved}")
    queries = default_queries()
    with _progress(disable=as_json) as progress:
        task = progress.add_task("bench web", total=len(queries) * rounds)
        report = run_web_bench(resolved, queries, mode, rounds, progress=lambda count: progress.advance(task, count))
    emit_report("bench-web", report, markdown_report(report), reports_dir, as_json)
