"""Shared fixtures and the test tiers.

Data: the committed fixture corpus (tests/fixtures/corpus: real papers cut from the shared
data) for every test that does not measure quality or scale; `shared_data` (../shared/data)
only for the `shared` tier. Tiers: see tests/tiers.py and docs/testing.md.
"""

from __future__ import annotations

import gzip
import importlib.util
import os
import shutil
import tempfile
from pathlib import Path
from typing import ClassVar

import orjson
import pytest
from fastapi.testclient import TestClient

from papersift.config import shared_data_dir
from papersift.ingest.pipeline import ingest_paths
from papersift.server import create_app
from papersift.store import Store
from served_papers import TEMPLATES_ENV, TEST_HOSTS, build_served_data_dir, built_once, template_root
from smtp_server import smtp_server  # noqa: F401 - a fixture (digest tests)
from tiers import CORE, FIXTURE_TIERS, missing, tiers_of

FIXTURE_CORPUS = Path(__file__).resolve().parent / "fixtures" / "corpus"
SAMPLE_CORPUS = Path(__file__).resolve().parents[1] / "src" / "papersift" / "sample_corpus"  # shipped: quickstart's fallback
SAMPLE = SAMPLE_CORPUS / "papers.jsonl.gz"  # every 17th paper of the shared corpus (1,996)
LABELED = FIXTURE_CORPUS / "iclr2024_labeled.jsonl.gz"  # the 1,992 ICLR 2024 papers with area/subarea
TITLE_ONLY = SAMPLE_CORPUS / "papers_title_only.jsonl.gz"  # every 50th title-only row (216)
NAMED = FIXTURE_CORPUS / "named_papers.jsonl.gz"  # papers tests name by id (make_corpus.NAMED_IDS)


def read_jsonl_gz(path: Path) -> list[dict]:
    with gzip.open(path, "rb") as handle:
        return [orjson.loads(line) for line in handle]


# ---------------------------------------------------------------- tiers


def under_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1")


class TierRun:
    """What this session saw: tiers whose tests ran, skips (with reasons) and deselections."""

    tiers: ClassVar[set[str]] = set()
    skips: ClassVar[list[str]] = []
    deselected = 0


def pytest_configure(config):
    TierRun.tiers, TierRun.skips, TierRun.deselected = set(), [], 0
    if not hasattr(config, "workerinput") and TEMPLATES_ENV not in os.environ:
        # made before pytest-xdist starts its workers, which inherit the variable: they share templates
        os.environ[TEMPLATES_ENV] = tempfile.mkdtemp(prefix="papersift-templates-")
        config.add_cleanup(lambda: shutil.rmtree(os.environ.pop(TEMPLATES_ENV), ignore_errors=True))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """A test that uses a tier's fixture is in that tier whatever its module says (FIXTURE_TIERS);
    a test in no tier is core. Runs before -m selects, so `-m core` sees these markers."""
    for item in items:
        for fixture, tier in FIXTURE_TIERS.items():
            if fixture in getattr(item, "fixturenames", ()) and item.get_closest_marker(tier) is None:
                item.add_marker(getattr(pytest.mark, tier))
        if not tiers_of({mark.name for mark in item.iter_markers()}):
            item.add_marker(getattr(pytest.mark, CORE))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Fail (not skip) every test of a tier whose resource is missing, with the tier's one line."""
    for tier in tiers_of({mark.name for mark in item.iter_markers()}):
        TierRun.tiers.add(tier)
        problem = missing(tier)
        if problem:
            pytest.fail(problem, pytrace=False)


def pytest_deselected(items):
    TierRun.deselected += len(items)


def pytest_runtest_logreport(report):
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        TierRun.skips.append(f"{report.nodeid}: {reason}")


def pytest_sessionfinish(session, exitstatus):
    """Under CI (CI=true) every tier must run: a skipped or deselected test fails the run."""
    if under_ci() and (TierRun.skips or TierRun.deselected):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """One line per tier whose resource was missing; under CI, why skips fail the run."""
    lines = [problem for tier in sorted(TierRun.tiers) if (problem := missing(tier))]
    if under_ci() and (TierRun.skips or TierRun.deselected):
        lines.append(f"CI: every tier must run, but {len(TierRun.skips)} test(s) were skipped "
                     f"and {TierRun.deselected} deselected")
        lines.extend(f"  skipped {skip}" for skip in TierRun.skips)
    if lines:
        terminalreporter.section("tiers")
        for line in lines:
            terminalreporter.write_line(line)


@pytest.fixture(scope="session", autouse=True)
def cheap_password_hashing():
    """argon2 at its lowest cost (argon2.profiles.CHEAPEST) in tests: the default cost (64 MiB,
    t=3) took ~150 ms a hash, seconds per accounts test module. The default itself is checked in
    tests/accounts/test_passwords.py."""
    if importlib.util.find_spec("argon2") is None:  # a core-only install: no accounts to test
        yield
        return
    from argon2 import PasswordHasher, profiles

    from papersift.accounts import passwords

    cheap = PasswordHasher.from_parameters(profiles.CHEAPEST)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(passwords, "hasher", lambda: cheap)
        yield


@pytest.fixture(scope="session")
def no_models_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("no-models")


@pytest.fixture(autouse=True)
def core_sees_no_models_nor_shared_data(request, monkeypatch, no_models_dir):
    """A core test runs as on a machine without built models or ../shared, whatever this one has
    (child processes inherit it): one that needs them fails here, not on someone else's machine."""
    if request.node.get_closest_marker(CORE) is None:
        yield
        return
    monkeypatch.setenv("PAPERSIFT_MODELS_DIR", str(no_models_dir))
    monkeypatch.setenv("PAPERSIFT_SHARED_DATA", str(no_models_dir / "no-shared-data"))
    yield
    built = sorted(path.name for path in no_models_dir.iterdir())
    assert not built, f"a core test built models {built}: mark it `models`"


# ---------------------------------------------------------------- data


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data (the `shared` tier; its presence is checked by the tier hook)."""
    return shared_data_dir()


def corpus_slice(count: int) -> list[dict]:
    """The first `count` papers of the fixture corpus (every 17th paper of the shared corpus)."""
    return read_jsonl_gz(SAMPLE)[:count]


@pytest.fixture(scope="session")
def sample_records() -> list[dict]:
    """1,996 real papers, every 17th of the shared corpus: all venues, 1987-2025 (tests/fixtures/corpus)."""
    return read_jsonl_gz(SAMPLE)


@pytest.fixture(scope="session")
def labeled_records() -> list[dict]:
    """The 1,992 ICLR 2024 papers with a conference topic (area/subarea), in corpus order."""
    return read_jsonl_gz(LABELED)


@pytest.fixture(scope="session")
def title_only_records() -> list[dict]:
    """216 real accepted-paper rows without an abstract."""
    return read_jsonl_gz(TITLE_ONLY)


@pytest.fixture(scope="session")
def named_records() -> list[dict]:
    """The few corpus papers tests name by id (the conference versions of the arXiv fixtures)."""
    return read_jsonl_gz(NAMED)


@pytest.fixture(scope="session")
def sample_jsonl(sample_records, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "sample.jsonl"
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in sample_records))
    return path


@pytest.fixture()
def store(tmp_path) -> Store:
    return Store(tmp_path / "data")


@pytest.fixture(scope="session")
def sample_data_dir(sample_jsonl) -> Path:
    """A data dir with the sample ingested, shared by every worker of the run: tests must not write to it."""

    def ingest(data_dir: Path) -> None:
        summary = ingest_paths(Store(data_dir), [sample_jsonl])
        assert summary.rejected == 0

    return built_once(template_root() / "sample_data", ingest)


@pytest.fixture(scope="session")
def served_data_dir(sample_records, tmp_path_factory) -> Path:
    """The sample plus hostile records, indexed by the service's own build (API and page tests)."""
    return build_served_data_dir(tmp_path_factory.mktemp("served"), sample_records)


@pytest.fixture(scope="session")
def app(served_data_dir):
    return create_app(served_data_dir, allowed_hosts=TEST_HOSTS)


@pytest.fixture(scope="session")
def client(app):
    # raise_server_exceptions=False: a 500 must show up as a response the tests can see.
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client
