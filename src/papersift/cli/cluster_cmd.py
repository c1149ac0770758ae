"""papersift cluster run/status/index/serve: papersift on a Typesense cluster."""

from __future__ import annotations

import itertools
import signal
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from papersift.cli.app import (
    DataDirOption,
    JsonOption,
    app,
    console,
    data_dir_of,
    err_console,
    fail,
    print_json,
    store_dir_of,
)

cluster_app = typer.Typer(help="Run papersift on a Typesense cluster (replicated, survives a node's death).",
                          no_args_is_help=True)
app.add_typer(cluster_app, name="cluster")

NodesOption = Annotated[str, typer.Option(
    "--nodes", envvar="PAPERSIFT_TYPESENSE_NODES", help="Typesense API addresses: host:port,host:port,...")]
ApiKeyOption = Annotated[str, typer.Option(
    "--api-key", envvar="PAPERSIFT_TYPESENSE_API_KEY", help="Typesense API key.")]


def node_list(nodes: str) -> list[str]:
    addresses = [node.strip() for node in nodes.split(",") if node.strip()]
    if not addresses:
        fail("--nodes: give at least one host:port")
    return addresses


def typesense_client(nodes: str, api_key: str):
    from papersift.backends.typesense_index import make_client

    try:
        return make_client(node_list(nodes), api_key)
    except ValueError as exc:
        fail(f"--nodes: {exc}")


def typesense_service(data_dir: Path, nodes: str, api_key: str):
    """SearchService over the cluster's collection (papers for display still come from the store)."""
    from papersift.backends.typesense_backend import TypesenseBackend
    from papersift.search.service import SearchService

    try:
        backend = TypesenseBackend(typesense_client(nodes, api_key))
        service = SearchService(data_dir, backend=backend)
    except LookupError as exc:
        fail(str(exc))
    vector_model = backend.vector_model()
    if vector_model:  # semantic and hybrid from the cluster's vectors, else from the data dir's index
        from papersift.backends.typesense_vectors import register_typesense_retrievers
        from papersift.search.semantic import shared_encoder

        register_typesense_retrievers(service, backend, shared_encoder(vector_model))
    return service


def check_backend(backend: str, nodes: str | None, api_key: str | None) -> tuple[str, str] | None:
    """None for the embedded backend; for typesense, its (nodes, api_key), both given."""
    if backend not in ("embedded", "typesense"):
        fail(f"--backend must be embedded or typesense, not {backend!r}")
    if backend == "embedded":
        return None
    if not (nodes and api_key):
        fail("--backend typesense needs --nodes host:port,... and --api-key (or PAPERSIFT_TYPESENSE_NODES/_API_KEY)")
    return nodes, api_key


def index_on_backend(backend: str, directory: Path, nodes: str | None, api_key: str | None, rebuild: bool,
                     as_json: bool) -> None:
    """`papersift index --backend typesense`."""
    access = check_backend(backend, nodes, api_key)
    if access is not None:  # the caller keeps the embedded index for itself
        index_on_typesense(directory, *access, rebuild, as_json)


def service_for_backend(backend: str, directory: Path, nodes: str | None, api_key: str | None):
    """`papersift serve --backend ...`: None keeps the embedded service."""
    access = check_backend(backend, nodes, api_key)
    return typesense_service(directory, *access) if access is not None else None


@cluster_app.command("run")
def cluster_run(
    root: Annotated[Path, typer.Option("--root", help="Folder for the nodes' data dirs and logs.")],
    api_key: ApiKeyOption,
    size: Annotated[int, typer.Option("--size", min=1, max=9, help="Number of nodes (3 survives one death).")] = 3,
    port: Annotated[int, typer.Option("--port", min=1024, max=60000,
                                      help="First API port; node i uses port+i, peering port+100+i.")] = 8108,
) -> None:
    """Start an N-node cluster on 127.0.0.1 in the foreground (Ctrl-C stops every node)."""
    from papersift.cluster.typesense_cluster import ClusterError, TypesenseCluster, loopback_nodes

    ports = [p for index in range(size) for p in (port + index, port + 100 + index)]
    nodes = loopback_nodes(size, ports)
    with TypesenseCluster(root, nodes, api_key) as cluster:
        try:
            cluster.start(wait=120)
        except ClusterError as exc:
            fail(str(exc))
        addresses = ",".join(f"127.0.0.1:{node.api_port}" for node in nodes)
        current = cluster.leader()  # None while an election is under way
        console.print(f"typesense cluster up: {size} nodes, leader {current.name if current else '?'}\n"
                      f"  --nodes {addresses}\n  data and logs under {root}", highlight=False)
        stop = []
        signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
        try:
            while not stop:
                time.sleep(1)
                for name in cluster.nodes:
                    if name not in cluster.running():
                        err_console.print(f"[yellow]node {name} is down[/]; restarting it")
                        cluster.restart(name, wait=0)
        except KeyboardInterrupt:
            pass


@cluster_app.command("status")
def cluster_status(nodes: NodesOption, api_key: ApiKeyOption, as_json: JsonOption = False) -> None:
    """Each node's health and Raft role."""
    from papersift.cluster.typesense_cluster import LEADER_STATE, NodeSpec, node_healthy, node_state

    rows = []
    for address in node_list(nodes):
        host, _, port = address.rpartition(":")
        spec = NodeSpec(address, int(port), 0, host)
        state = node_state(spec, api_key)
        role = {None: "down", LEADER_STATE: "leader", 4: "follower"}.get(state, f"state {state}")
        rows.append({"node": address, "healthy": node_healthy(spec), "role": role})
    if as_json:
        print_json(rows)
    else:
        for row in rows:
            console.print(f"{row['node']:<22} {row['role']:<9} {'ok' if row['healthy'] else 'NOT HEALTHY'}",
                          highlight=False)
    if not any(row["role"] == "leader" for row in rows):
        raise typer.Exit(1)


def index_on_typesense(directory: Path, nodes: str, api_key: str, rebuild: bool, as_json: bool) -> None:
    """`papersift index --backend typesense` / `papersift cluster index`."""
    from papersift.backends.typesense_index import (
        TypesenseIndexError,
        alias_target,
        build_collection,
        update_collection,
    )
    from papersift.store import Store

    try:
        store = Store(directory, readonly=True)
    except FileNotFoundError as exc:
        fail(str(exc))
    client = typesense_client(nodes, api_key)
    full = rebuild or alias_target(client) is None
    vectors, vector_dim, model = cached_vectors(directory)
    progress = Progress(TextColumn("[bold]typesense"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TextColumn("{task.fields[rate]}"), console=err_console, disable=as_json)
    started = time.perf_counter()
    try:
        with progress:
            task = progress.add_task("import", total=store.count() if full else None, rate="")

            def advance(count: int) -> None:
                progress.advance(task, count)
                done = progress.tasks[0].completed
                progress.update(task, rate=f"{done / max(time.perf_counter() - started, 1e-9):,.0f} papers/s")

            if full:
                result = build_collection(client, store, vectors, vector_dim, advance, vector_model=model)
            else:
                result = update_collection(client, store, vectors, advance, vector_model=model)
    except TypesenseIndexError as exc:
        fail(str(exc))
    summary = {"collection": result.collection, "imported": result.imported, "papers": result.total,
               "resumed_from_seq": result.resumed_from_seq, "alias_swapped": result.swapped,
               "seconds": round(result.seconds, 2)}
    if as_json:
        print_json(summary)
    else:
        console.print(f"typesense {'built' if full else 'updated'}: {result.imported:,} papers imported into "
                      f"{result.collection} ({result.total:,} in the store) in {result.seconds:.1f} s", highlight=False)


def cached_vectors(directory: Path):
    """(lookup, dim, model) of the data dir's embedding cache for the default model, or Nones
    when it has no cache or the model is not built: the collection then holds text only."""
    from papersift.backends.typesense_vectors import cache_vectors
    from papersift.index.embeddings import EMBEDDINGS_FOLDER, Encoder
    from papersift.models import DEFAULT_MODEL, ModelError
    from papersift.store import Store

    if not (directory / EMBEDDINGS_FOLDER / "cache.sqlite3").exists():
        return None, None, None
    try:
        encoder = Encoder(DEFAULT_MODEL)
    except ModelError:
        return None, None, None
    lookup = cache_vectors(directory, encoder)
    store = Store(directory, readonly=True)
    probe = [paper for _, paper in itertools.islice(store.iter_papers(batch_size=200), 200)]
    if not any(vector is not None for vector in lookup(probe)):  # the cache holds another model's vectors
        return None, None, None
    return lookup, encoder.dim, encoder.name


@cluster_app.command("index")
def cluster_index(
    nodes: NodesOption, api_key: ApiKeyOption, data_dir: DataDirOption = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Build a new collection and swap the alias.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Push the store into the cluster (batched, resumable, alias swap on a full build)."""
    index_on_typesense(data_dir_of(data_dir), nodes, api_key, rebuild, as_json)


@cluster_app.command("serve")
def cluster_serve(
    nodes: NodesOption, api_key: ApiKeyOption, data_dir: DataDirOption = None,
    host: Annotated[str, typer.Option("--host", help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535)] = 8000,
) -> None:
    """Serve the page and the API with searches answered by the Typesense cluster."""
    import uvicorn

    from papersift.api.security import allowed_hosts_for
    from papersift.server import create_app

    directory = store_dir_of(data_dir)
    server_app = create_app(directory, service=typesense_service(directory, nodes, api_key),
                            allowed_hosts=allowed_hosts_for(host))
    console.print(f"papersift (typesense backend): http://{host}:{port}/", highlight=False)
    uvicorn.run(server_app, host=host, port=port, log_level="warning", access_log=False)
