"""The worst request costs: a 1,000-character Chinese query in hybrid mode, alone and five at once.

Such a query is the most work one request can cause: e5 embeds the whole text, the term
bridge embeds each Chinese segment, and the keyword side searches hundreds of terms. The
facet counts and topic tree used to redo all of it once per filtered group and once per area
(docs/reliability-search.md). Every request here sends a text no earlier request sent (the
paragraph rotated), so no remembered query vector helps; concurrent requests each send their
own text too. Times are the client's wall clock per request, through the whole app in-process.
"""

from __future__ import annotations

import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlencode

from fastapi.testclient import TestClient

from papersift.config import MAX_QUERY_CHARS
from papersift.server import create_app
from papersift.store import Store

# Written for this benchmark: a research description of the kind people paste (no benchmark text).
PARAGRAPH = (
    "我们研究大规模预训练语言模型在低资源场景下的参数高效微调方法，重点比较低秩适配、前缀调优与适配器模块在文本分类、"
    "机器翻译和问答任务上的表现。针对长文本建模中注意力机制的二次复杂度问题，我们提出一种稀疏注意力与线性注意力相结合的"
    "结构，并分析其在长序列上的记忆能力与推理速度。在强化学习方面，我们关注离线强化学习中的分布偏移，讨论保守价值估计、"
    "行为克隆正则化以及基于模型的策略优化如何在有限数据下保证策略改进。对于图神经网络，我们考察过平滑现象、图结构学习和"
    "异配图上的消息传递，并将其应用于分子性质预测与推荐系统。生成模型部分比较扩散模型、变分自编码器与生成对抗网络在图像"
    "生成、视频合成和三维重建中的样本质量与训练稳定性，同时讨论无分类器引导与蒸馏加速采样的方法。我们还研究对比学习与自"
    "监督表示学习，分析数据增强、负样本选择和温度系数对下游任务迁移效果的影响。在可信机器学习方面，我们讨论对抗样本的鲁"
    "棒性认证、差分隐私随机梯度下降的隐私预算、联邦学习中的客户端异质性与通信压缩，以及模型校准和不确定性估计。优化理论"
    "方面，我们分析非凸优化中随机梯度下降的收敛速度、自适应学习率方法的泛化性能、过参数化神经网络的隐式正则化与神经正切"
    "核理论。最后我们讨论因果推断与分布外泛化，包括不变风险最小化、反事实推理和域自适应，以及贝叶斯深度学习中的变分推断、"
    "马尔可夫链蒙特卡洛采样和高斯过程在小样本学习与主动学习中的应用。多模态学习方面，我们研究视觉语言预训练、跨模态检索、"
    "图像描述生成与视觉问答，讨论指令微调、人类反馈强化学习和思维链提示如何提升大模型的推理能力与对齐效果，并评估模型在"
    "代码生成、数学推理和知识问答上的幻觉问题。我们也关注模型压缩，包括知识蒸馏、剪枝、量化与神经架构搜索在边缘设备上的部署。"
)
CONCURRENCY = (1, 5)
FILTERED_PAGE = {"venue": "ICLR", "year_from": "2020"}  # two filtered facet groups on the page


def long_query(variant: int) -> str:
    """The paragraph rotated by `variant` sentences' worth of characters, clipped to the API's limit."""
    text = PARAGRAPH * 3
    start = (variant * 53) % len(PARAGRAPH)
    return text[start:start + MAX_QUERY_CHARS].strip()


SCENARIOS = {
    "/api/facets hybrid": lambda q: "/api/facets?" + urlencode({"q": q, "mode": "hybrid"}),
    "/api/search hybrid": lambda q: "/api/search?" + urlencode({"q": q, "mode": "hybrid"}),
    "page / hybrid, 2 filters": lambda q: "/?" + urlencode({"q": q, "mode": "hybrid", "lang": "zh", **FILTERED_PAGE}),
    "/api/facets keyword": lambda q: "/api/facets?" + urlencode({"q": q, "mode": "keyword"}),
}


def _timed_get(client: TestClient, url: str) -> float:
    started = time.perf_counter()
    response = client.get(url)
    elapsed = (time.perf_counter() - started) * 1000
    if response.status_code != 200:
        raise RuntimeError(f"{url[:80]}... answered {response.status_code}: {response.text[:200]}")
    return elapsed


def run_costs_bench(data_dir: Path, rounds: int = 3, progress=None, service=None) -> dict:
    """Per scenario and concurrency: `rounds` batches of `concurrency` simultaneous requests
    (`service`: the app's search service, default the data dir's own)."""
    app = create_app(data_dir, service=service)
    results = []
    variant = 0
    with TestClient(app, base_url="http://127.0.0.1") as client:  # a loopback Host, as a local browser sends
        probe = client.get("/api/search?" + urlencode({"q": long_query(10_000), "mode": "hybrid", "size": 1}))
        notices = probe.json().get("notices", [])  # says whether hybrid could answer here
        for url_of in SCENARIOS.values():  # warm-up: models, jieba, CC-CEDICT, templates
            _timed_get(client, url_of(long_query(20_000)))
        for name, url_of in SCENARIOS.items():
            for concurrency in CONCURRENCY:
                times: list[float] = []
                with ThreadPoolExecutor(concurrency) as pool:
                    for _ in range(rounds):
                        urls = [url_of(long_query(variant + i)) for i in range(concurrency)]
                        variant += concurrency
                        times += pool.map(lambda url: _timed_get(client, url), urls)
                        if progress:
                            progress(1)
                results.append({"scenario": name, "concurrency": concurrency, "requests": len(times),
                                "p50_ms": round(statistics.median(times), 1), "max_ms": round(max(times), 1)})
    return {"data_dir": str(data_dir), "papers": Store(data_dir, readonly=True).count(),
            "query_chars": len(long_query(0)), "rounds": rounds, "hybrid_notices": notices, "results": results}


def markdown_report(report: dict) -> str:
    lines = [
        f"# papersift bench costs — {report['papers']:,} papers",
        "",
        (f"A {report['query_chars']}-character Chinese query, a new text every request; {report['rounds']} rounds; "
         "client wall time per request (in-process app)."),
        "",
        "| request | at once | requests | p50 ms | max ms |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in report["results"]:
        lines.append(f"| {row['scenario']} | {row['concurrency']} | {row['requests']} | {row['p50_ms']} | {row['max_ms']} |")
    if report["hybrid_notices"]:
        lines += ["", "Hybrid notices: " + "; ".join(report["hybrid_notices"])]
    return "\n".join(lines) + "\n"
