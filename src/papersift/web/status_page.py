"""/status: the operator's page (api/status.py reads where the data dir stands), in zh and en.

Shown only to a request from the server's own machine (a loopback address and a loopback Host:
api/status.from_this_machine), with or without accounts: accounts have no admin role, and whoever
is at the server's machine runs its commands anyway (docs/accounts.md, "The status page")."""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from papersift.api.backend import request_lang
from papersift.api.errors import ApiError
from papersift.api.params import PaperParams, SearchParams
from papersift.api.status import data_dir_status, from_this_machine
from papersift.i18n import MESSAGES, Lang, translate
from papersift.web.render import render
from papersift.web.urls import SearchState

router = APIRouter(include_in_schema=False)
# The commands an operator runs, each with what it does (the page names them: it is the operators').
COMMANDS = (("papersift ingest FILE... --data-dir D", "status_cmd_ingest"),
            ("papersift index --data-dir D", "status_cmd_index"),
            ("papersift embed --data-dir D [--model NAME]", "status_cmd_embed"),
            ("papersift topics predict --data-dir D", "status_cmd_predict"),
            ("papersift update --data-dir D", "status_cmd_update"))


def _when(seconds: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seconds)) if seconds else "–"


def _lines(status: dict, lang: Lang) -> dict:
    """Each section's sentences in the page's language."""
    def t(key: str, **values) -> str:
        return translate(key, lang, **values)

    def number(value: int) -> str:
        return f"{value:,}"

    index, papers, background, ingest = status["index"], status["papers"], status["background"], status["last_ingest"]
    lines: dict = {
        "index": t("status_index_line", generation=index["generation"], documents=number(index.get("documents", 0)),
                   built=_when(index.get("built_at")), updated=_when(index.get("updated_at")))
        if index else t("status_no_index"),
        "papers": t("status_papers_line", total=number(papers["total"]), with_abstract=number(papers["with_abstract"]),
                    title_only=number(papers["title_only"])) if papers else t("status_no_papers"),
        "vectors": [t("status_vectors_line", model=row["model"], papers=number(row["papers"]), total=number(row["of"]),
                      share=f"{row['coverage']:.0%}", written=_when(row["written_at"])) for row in status["vectors"]]
        or [t("status_no_vectors")],
        "topics": t("topic_coverage", labelled=number(status["topics"]["labelled"]),
                    lists=", ".join(status["topics"]["lists"]) or "–", predicted=number(status["topics"]["predicted"]),
                    without=number(status["topics"]["without"])),
        "topic_model": t("status_topic_model", version=status["topics"]["model_version"])
        if status["topics"]["model_version"] else None,
        "last_log": background["last_line"] if background else None,
    }
    if background is None:  # a data dir that quickstart's background chain never ran in
        lines["background"] = [t("status_no_background")]
    else:
        stages = []
        for number_, stage in enumerate(background["stages"], start=1):
            line = t("status_stage_line", number=number_, name=t(f"stage_{stage['name']}"),
                     state=t(f"status_state_{stage['state']}"))
            if stage["started_at"] and stage["ended_at"]:
                line += " · " + t("status_took", seconds=f"{stage['ended_at'] - stage['started_at']:.0f}")
            stages.append(line)
        if not background["alive"] and not all(stage["state"] == "done" for stage in background["stages"]):
            stages.append(t("status_background_stopped"))
        lines["background"] = stages
    if ingest is None:
        lines["ingest"] = t("status_no_ingest")
    else:
        counts = ingest["counts"]
        lines["ingest"] = t("status_ingest_line", started=_when(ingest["started_at"]), files=number(ingest["files"]),
                            read=number(counts.get("read", 0)), added=number(counts.get("added", 0)),
                            updated=number(counts.get("updated", 0)), rejected=number(counts.get("rejected", 0)),
                            state=t(f"status_ingest_{ingest['status']}") if f"status_ingest_{ingest['status']}" in MESSAGES
                            else ingest["status"], runs=number(ingest["runs"]))
    return lines


@router.get("/status", response_class=HTMLResponse)
def status_page(request: Request, params: Annotated[PaperParams, Query()]) -> HTMLResponse:
    lang = request_lang(request, params.lang)
    if not from_this_machine(request):
        raise ApiError(403, "status_local_only", translate("status_forbidden", lang))
    status = data_dir_status(request.app.state.settings.data_dir)
    return render(request, "status.html", lang, state=SearchState(SearchParams(), lang), lines=_lines(status, lang),
                  commands=[(command, translate(key, lang)) for command, key in COMMANDS])
