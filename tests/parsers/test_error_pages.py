from __future__ import annotations

import re

import pytest

from harvest.sipp import page_error
from tests.support.pages import FIXTURES

DETAIL = """<html><head><title>SIPP</title></head><body>
<div id="pageTitle"><b>INFORMASI DETAIL PERKARA</b></div>
<table id="tableinfo"><tr><td>Nomor Perkara</td><td>Penggugat</td><td>Tergugat</td>
<td>Status Perkara</td></tr>
<tr><td>12/Pdt.G/2024/PN Jkt.Pst</td><td>A</td>
<td><font color="red">Error, Pihak Not Found!!!</font></td><td>Persidangan</td></tr></table>
</body></html>"""
FRAGMENT = """<div class="cssTable"><table id="tableinfo"><tr><td>No</td><td>Nama</td></tr>
<tr><td>1</td><td>SAKSI A</td></tr></table></div>
<script type="text/javascript">closeLoading();</script>"""
CI_DB = """<html><head><title>Database Error</title></head><body><div id="container">
<h1>A Database Error Occurred</h1><p>Error Number: 2006</p></div></body></html>"""
CI_404 = """<!DOCTYPE html><html><head><title>404 Page Not Found</title></head><body>
<div id="container"><h1>404 Page Not Found</h1><p>The page you requested was not found.</p>
</div></body></html>"""
PHP_NOTICE = """<div style="border:1px solid #990000;padding-left:20px;margin:0 0 10px 0;">
<h4>A PHP Error was encountered</h4><p>Severity: Notice</p>
<p>Message:  Undefined index: enc</p></div>"""
CHALLENGE = """<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>
<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script></body></html>"""


def test_good_pages_are_not_errors(real_list_html):
    assert page_error(real_list_html, expect="list") is None
    assert page_error(DETAIL, expect="detail") is None
    assert page_error(FRAGMENT, expect="tab") is None


def test_full_pages_may_show_pihak_not_found(real_list_html):
    assert "Error, Pihak Not Found!!!" in real_list_html
    assert page_error(real_list_html, expect="list") is None
    assert page_error(DETAIL, expect="detail") is None


def test_tab_with_error_labels_means_session_not_warmed():
    html = FRAGMENT.replace("SAKSI A", '<font color="red">Error, Pihak Not Found!!!</font>')
    assert page_error(html, expect="tab") == "session not warmed: party labels missing"


@pytest.mark.parametrize("expect", ["list", "detail", "tab"])
@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("", "empty body"),
        ("   \n", "empty body"),
        (CI_DB, "database error"),
        (CI_404, "404 page"),
        (CHALLENGE, "js challenge"),
        (
            (
                "<html><body><h1>An Error Was Encountered</h1><p>Parameter URL Not Setup Correctly"
                "</p></body></html>"
            ),
            "parameter url error",
        ),
        (
            "<html><body><h1>An Error Was Encountered</h1><p>Unable to load.</p></body></html>",
            "application error",
        ),
        ("ERROR PERKARA NOT FOUND!<table></table>", "perkara not found"),
    ],
)
def test_error_pages(body, reason, expect):
    assert page_error(body, expect=expect) == reason


def test_php_notice_injected_into_good_pages(real_list_html):
    bad_list = real_list_html.replace('<div id="content">', PHP_NOTICE + '<div id="content">')
    assert page_error(bad_list, expect="list") == "php error"
    assert page_error(DETAIL.replace("<body>", "<body>" + PHP_NOTICE), expect="detail") == (
        "php error"
    )
    assert page_error(PHP_NOTICE + FRAGMENT, expect="tab") == "php error"


def test_list_page_instead_of_detail(real_list_html):
    assert page_error(real_list_html, expect="detail") == "list page instead of detail"


def test_full_page_instead_of_tab(real_list_html):
    assert page_error(real_list_html, expect="tab") == "full page instead of tab"
    assert page_error(DETAIL, expect="tab") == "full page instead of tab"


def test_truncated_pages(real_list_html):
    assert page_error(real_list_html[: len(real_list_html) // 2], expect="list") == (
        "truncated page"
    )
    cut = real_list_html[: real_list_html.index("</tbody>")]
    assert page_error(cut, expect="list") == "truncated page"
    assert page_error(DETAIL[:-20], expect="detail") == "truncated page"
    assert page_error(FRAGMENT[:-30], expect="tab") == "truncated page"


def test_wrong_case_on_detail():
    assert page_error(DETAIL, expect="detail", case_number="12/Pdt.G/2024/PN  Jkt.Pst") is None
    assert page_error(DETAIL, expect="detail", case_number="13/Pdt.G/2024/PN Jkt.Pst") == (
        "wrong case"
    )


def test_other_pages_are_not_lists_or_details():
    other = "<html><body><p>Statistik</p></body></html>"
    assert page_error(other, expect="list") == "not a list page"
    assert page_error(other, expect="detail") == "not a detail page"


def test_expect_is_checked():
    with pytest.raises(ValueError, match="expect must be"):
        page_error("<html></html>", expect="page")


def test_recaptcha_is_a_challenge_only_without_sipp_structure(real_list_html):
    gate = (
        "<html><head><title>Access check</title></head><body><div class='g-recaptcha' "
        "data-sitekey='x'></div></body></html>"
    )
    assert page_error(gate, expect="list") == "js challenge"
    assert page_error(gate, expect="tab") == "js challenge"
    # a court that embeds a captcha in its search form still serves good list pages
    with_captcha = real_list_html.replace(
        "<span></span>", "<span class='g-recaptcha' data-sitekey='x'></span>"
    )
    assert page_error(with_captcha, expect="list") is None


# --- a label the court's table lacks for one role is not a cold session -----------------------

_FOUR_SIDES = (
    FIXTURES / "golden" / "verdict-putusan-gugatan-empat-pihak" / "page.html"
).read_text(encoding="utf-8")
_ERROR_LABEL = '<font color="red">Error, Pihak Not Found!!!</font>'


def test_one_role_missing_while_the_header_shows_its_labels_is_warm():
    # putusan_akhir.php:331: pihakke 4 has no label; pihakke 1 and 2 print Penggugat/Tergugat
    assert _ERROR_LABEL + " 1" in _FOUR_SIDES
    assert "<td>Penggugat 1</td>" in _FOUR_SIDES
    assert page_error(_FOUR_SIDES, expect="tab") == "session not warmed: party labels missing"
    shown = ("Penggugat", "Tergugat")
    assert page_error(_FOUR_SIDES, expect="tab", shown_labels=shown) is None


def test_a_cold_fragment_shows_no_label_of_the_header_and_stays_cold():
    cold = _FOUR_SIDES
    for label in ("Turut Tergugat", "Penggugat", "Tergugat"):
        cold = re.sub(rf"<td>{label} (\d+)</td>", rf"<td>{_ERROR_LABEL} \1</td>", cold)
    assert "<td>Penggugat 1</td>" not in cold
    shown = ("Penggugat", "Tergugat")
    assert (
        page_error(cold, expect="tab", shown_labels=shown)
        == "session not warmed: party labels missing"
    )


def test_a_header_label_in_running_text_is_no_label_cell():
    # an amar naming the Tergugat does not make a cold fragment warm
    text_only = (
        f"<table><tr><td>{_ERROR_LABEL} 1</td><td>A</td></tr>"
        "<tr><td>Amar</td><td>Menghukum Tergugat membayar biaya perkara</td></tr></table>"
        '<script type="text/javascript">closeLoading();</script>'
    )
    assert (
        page_error(text_only, expect="tab", shown_labels=("Tergugat",))
        == "session not warmed: party labels missing"
    )
    notice = text_only.replace(
        "<td>Amar</td>",
        '<td><font color="white">Pemberitahuan Putusan Sela Kepada Tergugat</font></td>',
    )
    assert page_error(notice, expect="tab", shown_labels=("Tergugat",)) is None
