"""The replica's application: SIPP routes over the generated court (no sockets here).

``Site.handle(request) -> Response`` implements docs/sipp.md §1-3 and §5.1: list pages
(all cases, per flow, paging, sort toggling), the ``show_*`` -> 302 -> fixed-URL one-shot
session value, full pages that warm the PHP session, fragments that lack party labels in a
never-warmed session, and CodeIgniter's 404.
"""

from __future__ import annotations

import bisect
import dataclasses
import datetime as dt
import functools
import random
import re
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from urllib.parse import parse_qs

from . import render_broken, render_pailit
from .calendar import PAGE_STEP as CAL_PAGE_STEP
from .calendar import ROWS_SHOWN as CAL_ROWS_SHOWN
from .calendar import CalendarPage, HearingIndex, calendar_page
from .calendar import ordered as calendar_ordered
from .court import Court
from .formats import date_id
from .model import PAILIT_TAB, Case, CourtData, number_of
from .render import (
    ALL_TAB_ROUTES,
    CI_404,
    CI_DB_SYNTAX,
    PAGE_FOOT,
    ROWS_PER_PAGE,
    ListPage,
    Shell,
    detail_page,
    fragment,
    fragment_not_found,
    jadwal_popup,
    list_page,
    page_head,
    penahanan_popup,
    row_cells,
    search_form,
)
from .sessions import CiSession, CiSessions, PhpSession, PhpSessions
from .tokens import TokenCodec

PHP_COOKIE = "PHPSESSID"
CI_COOKIE = "ci_session"
#: tab routes whose controller serves a fragment (``/show_<slug>`` -> 302 -> ``/<slug>``)
FRAGMENT_ROUTES = frozenset(slug for slug, _ in ALL_TAB_ROUTES) - {"we_kppu"}
#: the stock routes that 404 (§1.1)
BROKEN_ROUTES = frozenset({"we_kppu"})
_FLOW_RE = re.compile(r"var_id=(\d*);")


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes = b""
    cookies: dict[str, str] = field(default_factory=dict)

    @property
    def user_agent(self) -> str:
        return self.headers.get("user-agent", "")


@dataclass
class Response:
    status: int
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)
    #: the response came from the application (not a gate); used by fault injection
    full_page: bool = False

    @classmethod
    def html(cls, text: str, status: int = 200, *, full_page: bool = False) -> Response:
        return cls(
            status,
            text.encode("utf-8"),
            [("Content-Type", "text/html; charset=UTF-8")],
            full_page=full_page,
        )

    @classmethod
    def redirect(cls, location: str) -> Response:
        return cls(
            302,
            b"",
            [("Location", location), ("Content-Type", "text/html; charset=UTF-8")],
        )


class Site:
    """SIPP routes over one generated court."""

    def __init__(self, data: CourtData, *, codec: TokenCodec) -> None:
        self.data = data
        self.court: Court = data.court
        self.codec = codec
        self.php = PhpSessions()
        self.ci = CiSessions(codec)
        self._flow_cache: dict[int, list[int]] = {}
        self._case = functools.lru_cache(maxsize=4096)(data.case)
        self._row_cells: OrderedDict[tuple[int, bool], str] = OrderedDict()
        self._calendar = HearingIndex(lambda: len(self.data), self.case, self.data.day)
        #: ``--same-day``: how often each window of a list was asked for (its tie draws)
        self._tie_asked: dict[tuple[int, int, int], int] = {}

    def _cells(self, index: int, tilang: bool) -> str:
        """A case's list-row cells, kept for many more cases than the case cache holds."""
        key = (index, tilang)
        cells = self._row_cells.get(key)
        if cells is None:
            cells = row_cells(self.case(index), tilang)
            self._row_cells[key] = cells
            if len(self._row_cells) > 200_000:
                self._row_cells.popitem(last=False)
        return cells

    # ------------------------------------------------------------------ data access
    def case(self, index: int) -> Case:
        return self._case(index)

    def registered(self) -> None:
        """A case was added (``--live``): per-flow lists must be rebuilt."""
        self._flow_cache.clear()

    def _flow_indices(self, alur_id: int) -> list[int]:
        """Indices of one flow, oldest first."""
        got = self._flow_cache.get(alur_id)
        if got is None:
            got = self.data.indices_newest_first(alur_id)[::-1]
            self._flow_cache[alur_id] = got
        return got

    def _page_indices(self, alur_id: int | None, page: int, asc: bool) -> tuple[list[int], int]:
        """The case indices on ``page`` (1-based) of a list, and the list's total."""
        start = (page - 1) * ROWS_PER_PAGE
        if self.data.same_day:
            pool = self._flow_indices(alur_id) if alur_id is not None else range(len(self.data))
            ordered = list(pool) if asc else list(pool)[::-1]
            return self._tie_window(ordered, start), len(ordered)
        if alur_id is None:
            total = len(self.data)
            if asc:
                picked = list(range(start, min(start + ROWS_PER_PAGE, total)))
            else:
                hi = total - 1 - start
                picked = list(range(hi, max(hi - ROWS_PER_PAGE, -1), -1))
            return picked, total
        ordered = self._flow_indices(alur_id)
        total = len(ordered)
        if asc:
            return ordered[start : start + ROWS_PER_PAGE], total
        hi = total - start
        return ordered[max(hi - ROWS_PER_PAGE, 0) : max(hi, 0)][::-1], total

    def _tie_window(self, ordered: list[int], start: int) -> list[int]:
        """Rows ``start .. start + 20`` of ``ordered`` (sorted by registration day) as this
        request orders them. Off ``--same-day`` the order is the index order. On it, the
        cases of one day come in an order drawn anew for each request: perkara_m.php:213 orders
        by ``tglPendaftaran DESC`` alone (``ORDER BY tglPendaftaran DESC, tglPendaftaran DESC
        LIMIT begin,20``), and MySQL leaves the order of ties to the plan, so the days that
        straddle a page boundary can show a case on two pages and another on none."""
        stop = min(start + ROWS_PER_PAGE, len(ordered))
        if not self.data.same_day or start >= stop:
            return ordered[start:stop]
        day = self.data.day
        lo, hi = start, stop
        while lo > 0 and day(ordered[lo - 1]) == day(ordered[start]):
            lo -= 1
        while hi < len(ordered) and day(ordered[hi]) == day(ordered[stop - 1]):
            hi += 1
        # a new order on every request, drawn from the seed, the window and how often it was
        # asked for: the same walk sees the same orders however its requests interleave
        asked = (len(ordered), ordered[0], start)
        count = self._tie_asked.get(asked, 0)
        self._tie_asked[asked] = count + 1
        ties = random.Random(f"ties:{self.data.seed}:{asked}:{count}")
        window: list[int] = []
        k = lo
        while k < hi:
            j = k
            while j < hi and day(ordered[j]) == day(ordered[k]):
                j += 1
            group = ordered[k:j]
            ties.shuffle(group)
            window += group
            k = j
        return window[start - lo : stop - lo]

    # ------------------------------------------------------------------ dispatch
    def handle(self, req: Request, base: str) -> Response:
        php_id = req.cookies.get(PHP_COOKIE)
        new_php = not PhpSessions.valid_id(php_id)
        if new_php or php_id is None:
            php_id = PhpSessions.new_id()
        session = self.php.get(php_id)
        ci = self.ci.decode(req.cookies.get(CI_COOKIE), req.user_agent)
        ci_new = ci is None
        if ci is None:
            ci = CiSessions.fresh(req.user_agent)
        resp = self._route(req, base, session, ci)
        if new_php:
            resp.headers.append(("Set-Cookie", f"{PHP_COOKIE}={php_id}; path=/"))
        if resp.full_page or (ci_new and resp.status == 200):
            ci.last_activity = int(time.time())
            cookie = f"{CI_COOKIE}={self.ci.encode(ci)}; Max-Age=7200; path=/"
            resp.headers.append(("Set-Cookie", cookie))
        return resp

    def _shell(self, base: str) -> Shell:
        return Shell(self.court, base, self.codec.encrypt)

    def _route(self, req: Request, base: str, session: PhpSession, ci: CiSession) -> Response:
        parts = [p for p in req.path.split("?", 1)[0].split("/") if p]
        head = parts[0] if parts else "list_perkara"
        if req.method == "POST":
            if parts[:2] == ["list_perkara", "search"]:
                return self._search(req, base, session, ci)
            if parts[:2] == ["list_perkara", "search_detail"]:
                return self._search_detail(req, base, session, ci)
            return Response.html(CI_404, 404)
        if req.method not in ("GET", "HEAD"):
            return Response.html(CI_404, 404)
        if head == "list_perkara":
            return self._list(parts[1:], base, session, ci)
        if head == "show_detil" and len(parts) == 2:
            session.enc = parts[1]
            return Response.redirect(base + "detil_perkara")
        if head == "detil_perkara" and len(parts) == 1:
            return self._detail(base, session)
        if head.startswith("show_") and len(parts) == 2:
            slug = head[len("show_") :]
            if slug in BROKEN_ROUTES or slug not in FRAGMENT_ROUTES:
                return Response.html(CI_404, 404)
            session.enc = parts[1]
            return Response.redirect(base + slug)
        if head == "penahanan" and len(parts) == 3:
            session.enc_penahanan = (parts[1], parts[2])
            return Response.redirect(base + "detil_penahanan")
        if head == "detil_penahanan" and len(parts) == 1:
            return self._penahanan(session)
        if head in FRAGMENT_ROUTES and len(parts) == 1:
            return self._fragment(head, session, base)
        if head in render_pailit.SUB_ROUTES and len(parts) >= 2:
            # routes.php:46-62: sub_<x>/<enc>[/...] -> redirect_page/redir_sub_<x>, which keeps
            # only <enc> (setParams) and redirects to /sub_<x>
            session.enc = parts[1]
            return Response.redirect(base + head)
        if head in render_pailit.SUB_ROUTES and len(parts) == 1:
            return self._sub_page(head, session)
        if head == "search" and len(parts) == 2:
            flows = [(a, self.court.flow_title(a)) for a in self.court.menu_flows()]
            return Response.html(search_form(self._shell(base), parts[1], flows))
        if head == "list_jadwal_sidang":
            return self._jadwal(parts[1:], base, session, ci)
        if head == "detil_jadwal_sidang" and len(parts) == 2:
            session.enc = parts[1]
            return Response.redirect(base + "detil_jadwal_sidang")
        if head == "detil_jadwal_sidang" and len(parts) == 1:
            return self._jadwal_popup(session)
        if head == "statistik_perkara" and len(parts) == 1:
            return self._simple_page(head, base, session)
        return Response.html(CI_404, 404)

    # ------------------------------------------------------------------ lists
    def _list(self, rest: list[str], base: str, session: PhpSession, ci: CiSession) -> Response:
        alur_id: int | None = None
        page = 1
        enc = ""
        if not rest or rest[0] == "index":
            ci.asc_desc = "DESC"
        elif rest[0] == "type" and len(rest) == 2:
            enc = rest[1]
            alur_id = self._flow_of(enc)
            if alur_id is None:
                return Response.html(CI_404, 404)
            ci.asc_desc = "DESC"
        elif rest[0] == "page" and len(rest) >= 2 and rest[1].isdigit():
            page = max(int(rest[1]), 1)
            if len(rest) >= 3:
                enc = rest[2]
                alur_id = self._flow_of(enc)
            if len(rest) >= 4 and rest[3] != "key":
                # a page of a keyword search: list_perkara/page/<n>/<enc>/<keyword token>/
                # col/<column> (list_perkara.php:49-61: the column orders it, perkara_m.php:57)
                keyword = self.codec.decrypt(rest[3])
                if keyword:
                    col = int(rest[5]) if len(rest) >= 6 and rest[5].isdigit() else 2
                    return self._keyword_page(
                        base, session, keyword, page, alur_id, col, ci.asc_desc == "ASC"
                    )
        elif rest[0] == "search_detail" and len(rest) >= 3 and rest[1] == "page":
            page = max(int(rest[2]), 1) if rest[2].isdigit() else 1
            return self._render_search(base, session, ci, page)
        elif rest[0] == "sort" and len(rest) >= 2:
            ci.asc_desc = "ASC" if ci.asc_desc == "DESC" else "DESC"
            if len(rest) >= 3:
                enc = rest[2]
                alur_id = self._flow_of(enc)
        else:
            # e.g. the PA menu's top-level /list_perkara/<enc>: CodeIgniter has no such method
            return Response.html(CI_404, 404)
        if alur_id is not None and alur_id not in self.court.menu_flows():
            return Response.html(CI_404, 404)
        return self._render_list(base, session, alur_id, page, ci.asc_desc == "ASC")

    def _flow_of(self, enc: str) -> int | None:
        plain = self.codec.decrypt(enc)
        if plain is None:
            return None
        m = _FLOW_RE.search(plain)
        if m is None or not m.group(1):
            return None
        return int(m.group(1))

    def _render_list(
        self,
        base: str,
        session: PhpSession,
        alur_id: int | None,
        page: int,
        asc: bool,
        indices: list[int] | None = None,
        total: int | None = None,
        pager_path: str = "list_perkara/page/",
        keyword: str = "",
        title: str | None = None,
        col: int = 2,
    ) -> Response:
        session.warm = True
        if indices is None:
            indices, total = self._page_indices(alur_id, page, asc)
        assert total is not None
        tilang = alur_id == 114
        rows = [
            (self._cells(i, tilang), self.codec.encrypt(str(self.data.id_perkara(i))))
            for i in indices
        ]
        if title is not None:
            enc = self.codec.encrypt("var_id=-1;var_tahapan=10;")
        elif alur_id is None:
            title = "DATA SELURUH PERKARA"
            enc = self.codec.encrypt("var_id=-1;var_tahapan=10;")
        else:
            title = "DAFTAR PERKARA " + self.court.flow_title(alur_id).upper()
            enc = self.codec.encrypt(f"var_id={alur_id};var_tahapan=10;")
        # header.php:8-17: convertDayDate(date) time zonaWaktu; the PA court has no sync row
        sync = None if self.court.variant == "pa" else f"{date_id(self.data.as_of)} 06:00:01 WIB"
        html = list_page(
            self._shell(base),
            ListPage(
                title=title,
                enc=enc,
                page=page,
                total=total,
                rows=rows,
                offset=(page - 1) * ROWS_PER_PAGE,
                tilang=tilang,
                sync=sync,
                pager_path=pager_path,
                keyword=keyword,
                keyword_enc=self.codec.encrypt(keyword) if keyword else "key",
                col=col,
            ),
        )
        return Response.html(html, full_page=True)

    def _search(self, req: Request, base: str, session: PhpSession, ci: CiSession) -> Response:
        """``POST /list_perkara/search``: a case-number keyword (substring) over all cases."""
        form = parse_qs(req.body.decode("utf-8", "replace"))
        keyword = " ".join((form.get("search_keyword") or [""])[0].split())
        if not keyword:
            return self._render_list(base, session, None, 1, False)
        # list_perkara.php:64-76: the posted enc's flow filters the search (perkara_m.php:179)
        alur_id = self._flow_of((form.get("enc") or [""])[0])
        return self._keyword_page(base, session, keyword, 1, alur_id)

    def _keyword_page(
        self,
        base: str,
        session: PhpSession,
        keyword: str,
        page: int,
        alur_id: int | None = None,
        col: int = 2,
        asc: bool = False,
    ) -> Response:
        """One page of a keyword search: the keyword is shown in the box and carried
        (encrypted) by the paging URLs, as list_perkara.php/body.php print it. A keyword that
        is no number also matches the registration day (perkara_m.php:188, ``tglPendaftaran
        LIKE "%key%"``). Column 1 orders by case number (perkara_m.php:58, direction from
        the session), any other by registration day (newest first)."""
        wanted = keyword.lower()
        by_day = not keyword.isdigit()
        pool = self._flow_indices(alur_id) if alur_id is not None else range(len(self.data))
        hits = [
            i
            for i in reversed(pool)
            if wanted in self._number(i).lower()
            or (by_day and wanted in dt.date.fromordinal(self.data.day(i)).isoformat())
        ]
        start = (page - 1) * ROWS_PER_PAGE
        if col == 1:
            hits.sort(key=self._number, reverse=not asc)
            picked = hits[start : start + ROWS_PER_PAGE]
        else:
            picked = self._tie_window(hits, start)
        return self._render_list(
            base,
            session,
            alur_id,
            page,
            False,
            indices=picked,
            total=len(hits),
            keyword=keyword,
            col=col,
        )

    def _search_detail(
        self, req: Request, base: str, session: PhpSession, ci: CiSession
    ) -> Response:
        """``POST /list_perkara/search_detail``: flow and registration-date filter.

        The filter is kept in the ``ci_session`` cookie (so it is bound to the User-Agent) and
        paged with ``/list_perkara/search_detail/page/<n>``. Without ``id_proses`` the stock
        code builds a broken SQL clause: CodeIgniter's database error page (status 200).
        """
        form = {
            k: v[0]
            for k, v in parse_qs(
                req.body.decode("utf-8", "replace"), keep_blank_values=True
            ).items()
        }
        if "id_proses" not in form:
            return Response.html(CI_DB_SYNTAX)
        search: dict[str, int] = {}
        alur = form.get("id_alur_perkara", "-1").strip()
        if alur.lstrip("-").isdigit() and int(alur) > 0:
            search["alur"] = int(alur)
        select = form.get("tgl_pendaftaran_select", "1")
        if select in ("2", "6"):
            lo = _dmy(form.get("from_tgl_pendaftaran", ""))
            hi = lo if select == "2" else _dmy(form.get("to_tgl_pendaftaran", ""))
            if lo is None or hi is None:
                return Response.html(CI_DB_SYNTAX)
            search["from"], search["to"] = lo, hi
        ci.search = search
        return self._render_search(base, session, ci, 1)

    def _render_search(self, base: str, session: PhpSession, ci: CiSession, page: int) -> Response:
        search = ci.search or {}
        alur = search.get("alur")
        pool = self._flow_indices(alur) if alur else range(len(self.data))
        if "from" in search:
            lo = bisect.bisect_left(pool, search["from"], key=self.data.day)
            hi = bisect.bisect_right(pool, search["to"], key=self.data.day)
            pool = pool[lo:hi]
        total = len(pool)
        if self.data.same_day:
            indices = self._tie_window(list(pool)[::-1], (page - 1) * ROWS_PER_PAGE)
        else:
            start = total - (page - 1) * ROWS_PER_PAGE
            indices = list(pool[max(start - ROWS_PER_PAGE, 0) : max(start, 0)])[::-1]
        return self._render_list(
            base,
            session,
            None,
            page,
            False,
            indices=indices,
            total=total,
            pager_path="list_perkara/search_detail/page/",
            # list_perkara.php:159-165: the session holds the posted enc's plaintext
            # ("var_id=...;var_tahapan=10;"), which is no flow id, so getJenisPerkara finds none
            title="DAFTAR PERKARA ALUR PERKARA TIDAK DITEMUKAN",
        )

    def _number(self, index: int) -> str:
        return number_of(self.data, index)

    # ------------------------------------------------------------------ detail and tabs
    def _take_case(self, session: PhpSession) -> tuple[str | None, Case | None]:
        """Consume the one-shot value: ``(token, case)``; ``(None, None)`` if none was stored,
        ``(token, None)`` if the token does not name a case of this court."""
        enc, session.enc = session.enc, None
        if enc is None:
            return None, None
        plain = self.codec.decrypt(enc)
        if plain is None or not plain.isdigit():
            return enc, None
        index = self.data.index_of_id(int(plain))
        return enc, (None if index is None else self.case(index))

    def _detail(self, base: str, session: PhpSession) -> Response:
        token, case = self._take_case(session)
        if token is None or case is None:
            return Response.redirect(base + "list_perkara")
        session.warm = True
        penahanan = [
            (self.codec.encrypt(f"{case.id_perkara}:{k}"), self.codec.encrypt(name))
            for k, name in enumerate(case.case_data["header"]["pihak_2"]["nama"])
        ]
        status = render_broken.cut_status(case)
        if status is not None:
            # --broken-pages: data_umum.php:130's fatal error cuts the page (render_broken.py)
            whole = dataclasses.replace(
                case,
                case_data={**case.case_data, "data_umum": render_broken.full_data_umum(case)},
            )
            html = render_broken.cut_page(detail_page(self._shell(base), whole, token, penahanan))
            return Response.html(html, status, full_page=True)
        if render_broken.pasted_petitum(case):
            # --broken-pages: a Petitum pasted with a table and stray end tags
            whole = dataclasses.replace(
                case,
                case_data={**case.case_data, "data_umum": render_broken.original_data_umum(case)},
            )
            html = render_broken.paste_petitum(
                case, detail_page(self._shell(base), whole, token, penahanan)
            )
            return Response.html(html, full_page=True)
        html = detail_page(self._shell(base), case, token, penahanan)
        return Response.html(html, full_page=True)

    def _fragment(self, slug: str, session: PhpSession, base: str) -> Response:
        token, case = self._take_case(session)
        if token is None:
            return Response.html(CI_404, 404)
        if case is None:
            return Response.html(fragment_not_found())
        if slug == PAILIT_TAB:
            return Response.html(render_pailit.menu_html(base, token))
        return Response.html(fragment(case, slug, session.warm))

    def _sub_page(self, route: str, session: PhpSession) -> Response:
        """``/sub_<x>``: the bankruptcy follow-up view of the case the one-shot value names (a
        case without such records gets the view's empty rows)."""
        token, case = self._take_case(session)
        if token is None:
            return Response.html(CI_404, 404)
        if case is None:
            return Response.html(fragment_not_found())
        for page in render_pailit.sub_pages(case.tabs.get("putusan")):
            if page.route == route:
                return Response.html(render_pailit.sub_page_html(page))
        return Response.html(render_pailit.sub_page_html(render_pailit.SubPage(route, None, [])))

    def _penahanan(self, session: PhpSession) -> Response:
        pair, session.enc_penahanan = session.enc_penahanan, None
        if pair is None:
            return Response.html(CI_404, 404)
        who, name = self.codec.decrypt(pair[0]), self.codec.decrypt(pair[1])
        if who is None or name is None or not re.fullmatch(r"\d+:\d+", who):
            return Response.html(fragment_not_found())
        id_perkara, defendant = (int(x) for x in who.split(":"))
        index = self.data.index_of_id(id_perkara)
        if index is None:
            return Response.html(fragment_not_found())
        periods = self.data.detention(index, defendant)
        return Response.html(penahanan_popup(self.case(index), name, periods))

    # ------------------------------------------------------------------ hearing calendar
    # (issue 26: reference/sipp_site/calendar.py renders it from the real template)
    def hearings_on(self, day: dt.date) -> list[tuple[int, int]]:
        """``(case index, jadwal row)`` of every hearing on ``day`` (every case of the court),
        in case-number order."""
        rows = self._calendar.on(day)
        return sorted(rows, key=lambda r: (self.case(r[0]).nomor_perkara, r[1]))

    def _jadwal(self, rest: list[str], base: str, session: PhpSession, ci: CiSession) -> Response:
        """``/list_jadwal_sidang`` (the as-of day), ``search/<1|other>/DD/MM/YYYY``,
        ``search/page/<n>/<enc>/...`` and ``page/<n>/...`` (calendar.py's docstring)."""
        page = 1
        day: dt.date | None = self.data.as_of
        key = self.data.as_of.isoformat()
        page_url, keyword = "list_jadwal_sidang", "key"
        if not rest or rest == ["index"]:
            ci.asc_desc = "DESC"
        elif rest[0] == "search" and len(rest) >= 3 and rest[1] == "page":
            if not rest[2].isdigit():
                return Response.html(CI_404, 404)
            page = max(int(rest[2]), 1)
            key = (self.codec.decrypt(rest[3]) or "") if len(rest) >= 4 else ""
            day = _iso_day(key)
            page_url, keyword = "list_jadwal_sidang/search", key
        elif rest[0] == "search" and len(rest) == 5:
            ordinal = _dmy("/".join(rest[2:]))
            if ordinal is None:
                return Response.html(CI_404, 404)
            # search/1/DD/MM/YYYY: the key is the segments joined as given (unpadded ones
            # match no tglSidang); any other mode leaves tgl_cari unset: no key, every row
            key = f"{rest[4]}-{rest[3]}-{rest[2]}" if rest[1] == "1" else ""
            day = dt.date.fromordinal(ordinal) if key else None
            page_url, keyword = "list_jadwal_sidang/search", key
        elif rest[0] == "page" and len(rest) >= 2 and rest[1].isdigit():
            page = max(int(rest[1]), 1)
            key, day = "", None  # parse_params finds no var_id in a date: no key
        else:
            return Response.html(CI_404, 404)
        session.warm = True
        offset = (page - 1) * CAL_PAGE_STEP
        found = calendar_ordered(
            self._calendar.matching(key), self.case, desc=ci.asc_desc == "DESC"
        )
        rows = []
        for index, k in found[offset : offset + CAL_ROWS_SHOWN]:
            case = self.case(index)
            token = self.codec.encrypt(f"{case.id_perkara}:{k}")
            rows.append((case, case.tabs["jadwal_sidang"][k], token))
        sync = None if self.court.variant == "pa" else f"{date_id(self.data.as_of)} 06:00:01 WIB"
        html = calendar_page(
            self._shell(base),
            CalendarPage(
                key=key,
                day=day,
                page=page,
                offset=offset,
                rows=rows,
                page_url=page_url,
                keyword=keyword,
                enc=self.codec.encrypt(key),
                sync=sync,
                today=self.data.as_of,
            ),
        )
        return Response.html(html, full_page=True)

    def _jadwal_popup(self, session: PhpSession) -> Response:
        enc, session.enc = session.enc, None
        if enc is None:
            return Response.html(CI_404, 404)
        plain = self.codec.decrypt(enc) or ""
        m = re.fullmatch(r"(\d+):(\d+)", plain)
        index = self.data.index_of_id(int(m.group(1))) if m else None
        if m is None or index is None:
            return Response.html(fragment_not_found())
        case = self.case(index)
        rows = case.tabs.get("jadwal_sidang", [])
        k = int(m.group(2))
        if k >= len(rows):
            return Response.html(fragment_not_found())
        return Response.html(jadwal_popup(case, rows[k]))

    def _simple_page(self, head: str, base: str, session: PhpSession) -> Response:
        session.warm = True
        if head == "statistik_perkara":
            title = "STATISTIK PERKARA"
            rows = "".join(
                f"<tr><td>{self.court.flow_title(a)}</td><td>{self.data.count(a)}</td></tr>"
                for a in self.court.menu_flows()
            )
            body = (
                '<div class="cssTable"><table id="tablePerkaraAll"><tbody>'
                f"<tr><td>Jenis Perkara</td><td>Jumlah</td></tr>{rows}</tbody></table></div>"
            )
        html = (
            page_head(self._shell(base))
            + f'\t<div id="pageTitle">\n\t\t<b>{title}</b>\n\t</div>\n{body}\n'
            + PAGE_FOOT
        )
        return Response.html(html, full_page=True)


def _iso_day(text: str) -> dt.date | None:
    """``YYYY-MM-DD`` as a day, or None (the calendar's title prints any other key as is)."""
    try:
        return dt.date.fromisoformat(text) if len(text) == 10 else None
    except ValueError:
        return None


def _dmy(text: str) -> int | None:
    """``dd/mm/yyyy`` (the search form's dates) as a date ordinal, or None."""
    m = re.fullmatch(r"\s*(\d{1,2})/(\d{1,2})/(\d{4})\s*", text)
    if m is None:
        return None
    try:
        return dt.date(int(m.group(3)), int(m.group(2)), int(m.group(1))).toordinal()
    except ValueError:
        return None


__all__ = ["Request", "Response", "Site"]
