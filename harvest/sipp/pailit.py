"""The bankruptcy follow-up menu (tab ``setelah_putusan_pernyataan_pailit``) and the sub pages
it links to: which sub pages a reader of the menu can open, and at which URL.

The fragment (``application/views/perkara_tab/putusan_pernyataan_pailit.php``) is only a menu:
one button per follow-up (``<a id='tabInfos' href="#accorN">Label</a>``) and a script whose
branch for ``#accorN`` loads ``sub_<x>/<enc>[/...]`` into ``#tabs_from_accor``. Those URLs go
through ``redirect_page/redir_sub_<x>`` (routes.php:46-62), which keeps only ``<enc>`` in the
flash session and redirects to ``/sub_<x>``: the same one-shot pattern as ``show_<slug>``.

The Perdamaian (``#accor8``) and Pembatalan Perdamaian (``#accor9``) buttons are printed only
``if($alur_perkara_id==3)`` (lines 17-22), a variable the controller
(controllers/putusan_pernyataan_pailit.php) never sets: on a stock install they never show, and
their script branches are unreachable. A link is therefore taken only for a button the page
shows. Not wired into the spider yet (docs/fidelity.md, "Out of scope here").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harvest.sipp.html import absolute_url, parse_html, text, xpath_elements

__all__ = ["SubPageLink", "sub_page_links"]

#: ``if($(this).attr('href')=='#accorN'){ openLoadingDialog(); $('#tabs_from_accor').load('U');``
_LOAD = re.compile(
    r"attr\('href'\)\s*==\s*'#(?P<anchor>accor\d+)'\s*\)\s*\{\s*"
    r"(?:openLoadingDialog\(\);\s*)?\$\('#tabs_from_accor'\)\.load\('(?P<url>[^']+)'\)"
)
_ROUTE = re.compile(r"/(?P<route>sub_[a-z]+)/[^/?#]+")


@dataclass(frozen=True)
class SubPageLink:
    """One follow-up a reader can open: the button's ``#accorN``, its label as printed, the
    sub page's route (``sub_kurator``) and the absolute URL the script loads."""

    anchor: str
    label: str
    route: str
    url: str


def sub_page_links(html: str, page_url: str) -> list[SubPageLink]:
    """The sub pages of a ``setelah_putusan_pernyataan_pailit`` fragment, in button order: each
    button the page shows whose script branch loads a ``sub_*`` URL."""
    loads: dict[str, str] = {}
    for m in _LOAD.finditer(html):
        loads.setdefault(m.group("anchor"), m.group("url"))
    doc = parse_html(html, "tab:setelah_putusan_pernyataan_pailit")
    out: list[SubPageLink] = []
    for a in xpath_elements(doc, "//a[@id='tabInfos'][starts-with(@href, '#accor')]"):
        anchor = str(a.get("href", ""))[1:]
        url = loads.get(anchor)
        route = _ROUTE.search(url) if url else None
        if url is None or route is None:
            continue
        out.append(SubPageLink(anchor, text(a), route.group("route"), absolute_url(page_url, url)))
    return out
