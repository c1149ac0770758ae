"""The library where the user is: the forms that change it from the page.

* On every hit (search results, similar papers): add a tag (the user's tags offered in a
  datalist), like (+), not interested (−); the hit shows its current marks.
* On /library: a paper's note and reading state, removing it, and importing a file.

Plain HTML forms that work without JavaScript (POST, then 303 back to the page they came
from); static/library.js sends the same forms with fetch and updates the hit in place. The hits
of a page share one form (the write token typed once, not per hit): each hit's buttons say which
hit they act on (`do=like:3` acts on `paper-3`), and Enter in a tag box sends the default button,
which adds every tag typed. Guarded like the page's other forms (web/forms.py): writes enabled,
the write token, and the CSRF token. The library is always the request's user's
(api.writes.user_tables_of via library_of).
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from papersift.api.auth import accounts_on, request_user
from papersift.api.backend import request_lang
from papersift.api.errors import ApiError
from papersift.api.library_routes import import_slot, library_of, read_import
from papersift.i18n import LANGS
from papersift.library.entries import RATINGS, Library, LibraryError
from papersift.library.interchange import LibraryFormatError, import_library
from papersift.web.forms import check_form_csrf, check_write_token, require_form_writes
from papersift.web.library_view import LABELS, render_library
from papersift.web.saved_pages import _checked_form, form_context

router = APIRouter(include_in_schema=False)
ACTIONS = ("tags", "tag", "like", "dislike", "none", "save", "remove")


def marks_context(request: Request, paper_ids: list[str]) -> dict:
    """What a page of hits needs to draw their marks and controls: the user's entries for these
    papers, their tags (the datalist), whether forms are on, the CSRF token, where to come back."""
    forms = form_context(request)
    back = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    if accounts_on(request) and request_user(request) is None:  # an anonymous visitor has no library
        return {"writes": False, "csrf": None, "entries": {}, "tags": [], "back": back}
    library = library_of(request)
    entries = {entry.paper_id: entry for entry in library.entries(paper_ids=paper_ids)} if paper_ids else {}
    return {"writes": bool(forms["writes"] and forms["csrf"]), "csrf": forms["csrf"],
            "entries": entries, "tags": list(library.tags()), "back": back}


def _safe_back(back: str | None) -> str:
    """Only this site's pages: never an open redirect."""
    return back if back and back.startswith("/") and not back.startswith("//") else "/library"


def _wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


def _field(values: dict[str, list[str]], name: str) -> str:
    return (values.get(name) or [""])[0]


def _paper_of(values: dict[str, list[str]], index: str) -> str:
    paper_id = _field(values, f"paper-{index}").strip()
    if not paper_id:
        raise ApiError(422, "invalid_body", f"the form names no paper for hit {index!r}")
    return paper_id


def apply_marks(library: Library, values: dict[str, list[str]]) -> list[str]:
    """Do what the form's pressed button (`do`) says; returns the papers it changed."""
    action, _, index = (_field(values, "do") or "tags").partition(":")
    if action not in ACTIONS:
        raise ApiError(422, "invalid_body", f"no form action {action!r}")
    try:
        if action == "tags":  # Enter in a tag box (no JavaScript): every tag typed on the page
            typed = [(name.removeprefix("tag-"), value[0]) for name, value in values.items()
                     if name.startswith("tag-") and value and value[0].strip()]
            for hit, tag in typed:
                library.tag([_paper_of(values, hit)], tag)
            return [_paper_of(values, hit) for hit, _ in typed]
        paper_id = _paper_of(values, index)
        if action == "tag":
            library.tag([paper_id], _field(values, f"tag-{index}"))
        elif action in RATINGS:
            library.rate([paper_id], RATINGS[action])
        elif action == "save":
            library.set_note(paper_id, _field(values, f"note-{index}").replace("\r\n", "\n"))
            library.set_reading([paper_id], _field(values, f"reading-{index}") or "none")
        else:
            library.remove([paper_id])
        return [paper_id]
    except LibraryError as problem:
        raise ApiError(422, "invalid_change", str(problem)) from None


@router.post("/library/marks", dependencies=[Depends(require_form_writes)])
async def marks_from_page(request: Request) -> Response:
    values = await _checked_form(request)

    def change() -> list[dict]:
        library = library_of(request)
        changed = apply_marks(library, values)
        return [entry.to_dict() for entry in library.entries(paper_ids=changed)]
    entries = await run_in_threadpool(change)
    if _wants_json(request):
        return JSONResponse({"ok": True, "entries": entries, "tags": list(library_of(request).tags())})
    return RedirectResponse(_safe_back(_field(values, "back")), status_code=303)


@router.post("/library/import", dependencies=[Depends(require_form_writes)], response_class=HTMLResponse)
async def import_from_page(request: Request) -> HTMLResponse:
    """A file from the import form (multipart): matched entries merged in one transaction, and a
    page with one line per entry that matched nothing."""
    with import_slot(request):
        return await _import_form(request)


async def _import_form(request: Request) -> HTMLResponse:
    form = await request.form(max_files=1, max_fields=20)
    fields = [(name, value) for name, value in form.multi_items() if isinstance(value, str)]
    check_write_token(request, fields)
    check_form_csrf(request, str(form.get("csrf") or ""))
    upload = form.get("file")
    if upload is None or isinstance(upload, str) or not upload.filename:
        raise ApiError(422, "invalid_body", "choose a file to import")

    async def chunks():
        while chunk := await upload.read(1 << 20):
            yield chunk
    raw = await read_import(chunks(), None, upload.filename)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ApiError(422, "invalid_body", f"{upload.filename}: not UTF-8 text") from None
    file_format = str(form.get("format") or "") or None
    tag = str(form.get("tag") or "").strip() or None
    lang_value = str(form.get("lang") or "")
    lang = request_lang(request, lang_value if lang_value in LANGS else None)

    def run():
        try:
            return import_library(library_of(request), text, file_format, filename=upload.filename, tag=tag)
        except (LibraryFormatError, LibraryError) as problem:
            raise ApiError(422, "invalid_import", f"{upload.filename}: {problem}") from None
    summary = await run_in_threadpool(run)
    return render_library(request, "library_import.html", lang, summary=summary, filename=upload.filename,
                   import_labels=LABELS[lang])
