"""Issue 28 item 11/first-hour item 3: what stands before a server answers its first keyword
search. Making the app imported scikit-learn, SciPy and pandas (the topic routes reached them
through topics.features and topics.projection): ~1-3 s of a cold start on 2 busy cores, before
the first answer, for nothing a search needs."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("sklearn", "scipy", "pandas", "matplotlib", "joblib", "umap")


def test_making_the_app_and_a_keyword_search_import_no_topic_model_library(served_data_dir):
    code = (
        "import sys\n"
        "from fastapi.testclient import TestClient\n"
        "from papersift.server import create_app\n"
        f"app = create_app({str(served_data_dir)!r}, allowed_hosts=('testserver',))\n"
        "response = TestClient(app).get('/api/search', params={'q': 'learning', 'mode': 'keyword'})\n"
        "assert response.status_code == 200 and response.json()['total'] > 0, response.text\n"
        f"print(' '.join(name for name in {HEAVY!r} if name in sys.modules))\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.strip() == "", f"imported before the first keyword answer: {ran.stdout.strip()}"
