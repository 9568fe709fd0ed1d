"""Text coverage: every visible text of a page is in the data parsed from it, or is boilerplate.

``dropped_texts(page, html, data)`` returns the visible texts of ``html`` that are neither
found in ``data`` (the parser's output for that page) nor known boilerplate. How a text counts
as found, in order:

1. its visible texts are taken in document order (no ``script``, ``style``, ``head``,
   ``title``, comments, nor the header's version badge): the text between two breaks (a block
   element's edge, ``<br>``), inline markup running through, whitespace collapsed; a text
   that is only punctuation (``:``, ``-``, ``/``, ``(``, ``)``, ...) is no text;
2. a node equal to a string of the data (every string value, every line of a multi-line long
   text, every integer as decimal), or found at the start or the end of one (a line the parser
   joined to the next), or, if it has two words or more and :data:`SUBSTRING_MIN` characters
   or more, found anywhere in one between word boundaries, is found;
3. a node that reads as a date (``Rabu, 29 Mei 2024``, ``29/05/2024``), an amount
   (``Rp. 1.234.000``) or a number of days (``21 Hari``) the parsers' own normalisers accept,
   whose normalised form (``2024-05-29``, ``1234000``, ``21``) is a string or number of the
   data, is found;
4. a node made of found strings, boilerplate and punctuation (``Hakim Ketua : BUDI``) is
   found: the page's chrome patterns (:data:`_CUT_PATTERNS`), the dates and amounts whose
   normal form is data, then the data strings and boilerplate phrases (longest first, between
   word boundaries) are cut out of it;
5. a node on the allow-list of its page kind (:data:`BOILERPLATE`: labels, headings, column
   names, no-data messages, menu/navigation/footer text), compared case-insensitively, or
   matching one of its patterns (:data:`BOILERPLATE_PATTERNS`: the court name, the footer),
   is boilerplate; so is a row number, as the whole text of a row's first cell (or anywhere on
   a list page: its paging links).

What is left is dropped: a text the page shows that the item does not hold.

The allow-list is here and only here. It holds words a page prints *around* data, never data:
a label is boilerplate because the parser stores the row's value under a key named after it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import lxml.etree
import lxml.html

from harvest.sipp.normalise import clean_text, parse_date, parse_money

_SKIP = frozenset({"script", "style", "head", "title", "noscript", "template"})
_END_BR = re.compile(r"</br\s*>", re.IGNORECASE)
#: Page chrome told by its class: the SIPP version badge of the header (``<div
#: class="version_shading"><label>520</label>``).
_SKIP_CLASSES = frozenset({"version_shading"})
#: Inline markup: its text runs on with the text around it (everything else is a break).
_INLINE = frozenset(
    {"a", "abbr", "b", "big", "cite", "code", "em", "font", "i", "label", "s", "small", "span",
     "strike", "strong", "sub", "sup", "tt", "u"}
)  # fmt: skip
_PUNCT = re.compile(r"[\s:;,.\-/()\[\]|*#=+_'\"<>!?&%@~`^{}\\…«»]*")
#: A date or an amount inside a longer text node (rule 4 cuts it when its normal form is data).
_DATE_IN_TEXT = re.compile(
    r"(?:(?:senin|selasa|rabu|kamis|jumat|jum'at|sabtu|minggu),?\s*)?"
    r"(?:\d{1,2}\s+[a-z]{3,9}\.?\s+\d{4}|\d{1,2}/\d{1,2}/\d{4}|\d{4}-\d{2}-\d{2})",
    re.IGNORECASE,
)
_MONEY_IN_TEXT = re.compile(r"rp\.?\s*-?[\d.]+(?:,\d{1,2})?", re.IGNORECASE)
#: A number with thousands separators (``3.101``, ``1,500,000``) or zero decimals
#: (``125000000.00``), as SIPP prints counts and raw amounts: its integer.
_NUMBER = re.compile(r"\d{1,3}(?:([.,])\d{3})(?:\1\d{3})*|\d+[.,]0{1,2}")
#: ``N Hari`` (a number of days, SIPP's only unit): the parsers store ``N``.
_DAYS = re.compile(r"(\d+) Hari", re.IGNORECASE)

#: Words printed around data on every page: page chrome (header.php, footer.php, the menu of
#: case flows), navigation, the no-data messages of the tabs, and the set headings of a
#: verdict's or a claim's text (``MENGADILI:``, ``PRIMAIR:``), the same in every case.
_COMMON = """
SIPP | Sistem Informasi Penelusuran Perkara | Beranda | Home | Kembali | Laporan | Statistik |
Jadwal Sidang | Pencarian Perkara | Informasi | Perkara | Data Perkara | Kontak | Login |
Perdata | Perdata Gugatan | Perdata Gugatan Sederhana | Perdata Gugatan Bantahan |
Perdata Permohonan | Pidana | Pidana Biasa | Pidana Singkat | Pidana Cepat | Pidana Anak |
Perkara Lalu Lintas | Praperadilan | Jinayat | Jinayat Anak | Praperadilan Jinayat |
Register Perkara Jinayat | Register Perkara Jinayat Anak | Pidana Militer | Perdata Agama |
Tata Usaha Negara | Gugatan | Permohonan | Fiktif Positif | Perlawanan | Militer |
Data Tidak Ditemukan | Belum Ditetapkan | Tidak Ada Data | Belum Ada Data |
Tidak Ada Pencatatan Register Barang Bukti | Belum Diberitahukan | Belum Ada Laporan |
MENGADILI | MENETAPKAN | MEMUTUSKAN | MENIMBANG | MENGINGAT | PRIMAIR | SUBSIDAIR | DALAM EKSEPSI |
DALAM POKOK PERKARA
"""
#: Patterns (full match of a text node) printed on every page: the court's name in the header
#: (the court is the crawl's court id in the item), the footer, paging and row numbers.
_COMMON_PATTERNS = (
    r"PENGADILAN (NEGERI|AGAMA|TATA USAHA NEGARA|TINGGI|MILITER|MAHKAMAH)\b[\w .,()\-/]*",
    r"MAHKAMAH SYAR'?IYAH\b[\w .,()\-/]*",
    r"Hak Cipta © Mahkamah Agung Republik Indonesia( \d{4})?",
    r"SIPP( Lokal)? Versi [\w.]+",
)
#: A row number: boilerplate only as the whole text of a row's first cell (the ``No`` column;
#: the list order is the row order), and anywhere on a list page (its paging links).
_ROW_NUMBER = re.compile(r"\d{1,4}\.?")

#: Page kind (``list``, ``detail``, ``tab:<slug>``; slug = the ``show_<slug>`` route) -> the
#: labels, block headings and column names the page's template prints around its data
#: (application/views/...: perkara_list/perkara_list.php, detil_perkara/detil_perkara.php +
#: perkara_tab/data_umum.php, perkara_tab/<template>.php). Compared case-insensitively, with a
#: trailing ``:`` ignored.
_PAGES = {
    "list": """
        No | Nomor Perkara | Nomor Seri Tilang / No Pembayaran | Tanda Nomor Kendaraan Bermotor |
        Pelanggar | Tanggal Sidang | Ruang Sidang | Putusan | Link | Tanggal Register |
        Klasifikasi Perkara | Para Pihak | Status Perkara | Lama Proses | detil | Next | Prev |
        First | Last | Pembaharuan Data | Total | Perkara | tanggal gagal dimuat | Cari |
        DATA SELURUH PERKARA | DAFTAR PERKARA
    """,
    "detail": """
        INFORMASI DETAIL PERKARA | Detail Perkara | Nomor Perkara | Status Perkara | Data Umum |
        Tanggal Pendaftaran | Klasifikasi Perkara | Tanggal Surat | Nomor Surat |
        Tanggal Surat Pelimpahan | Nomor Surat Pelimpahan | Tanggal Penindakan | Ditindak Oleh |
        Jenis Surat Tilang | Nomor Seri Surat Tilang | Nomor Pembayaran | Jenis Kendaraan |
        Tanda Nomor Kendaraan Bermotor | Bukti | Berkas Dari | Tanggal Kejadian |
        Tempat Kejadian | Nomor Surat Dakwaan | Pasal Dakwaan | Tanggal Skeppera |
        Penyidik Militer | Nomor Skeppera | Nomor BAP Penyidik Militer | Pejabat Skeppera |
        Tanggal BAP Penyidik | Tanggal Surat Dakwaan | Anak Korban | Nilai Sengketa(Rp) |
        Nilai Sengketa (Rp) | Pihak Dipublikasikan | Prodeo | Dakwaan | Petitum | Nama |
        No | Nama Pihak | Alamat | Penahanan | Kuasa Hukum | Pendapat Hukum |
        Pendapat Ormil & Pappera
    """,
    "tab:riwayat_perkara": "No | Tanggal | Tahapan | Proses",
    "tab:jadwal_sidang": "No | Tanggal Sidang | Jam | Agenda | Ruangan | Alasan Ditunda",
    "tab:penetapan": """
        PENETAPAN HAKIM | Tanggal Penetapan | Nama Hakim/Majelis Hakim | Posisi | Aktif |
        PENETAPAN PANITERA PENGGANTI | Nama Panitera Pengganti | PENETAPAN JURUSITA PENGGANTI |
        Nama Jurusita Pengganti | PENETAPAN SIDANG PERTAMA | Tanggal Sidang Pertama | Jenis Acara
    """,
    "tab:saksi": "No | Nama",
    "tab:mediasi": """
        Data Penetapan | Tgl. Penetapan Mediator | No. Penetapan Mediator | Data Mediator | No |
        Nama | Status Mediator | Tgl. Mulai Mediasi | Tgl. Hasil Mediasi | Hasil Mediasi
    """,
    "tab:mediasi_luar": """
        Tgl. Kesepakatan Perdamaian | Data Mediator | No | Nama | Status Mediator
    """,
    "tab:penuntutan": "Tanggal Tuntutan | Isi Tuntutan",
    "tab:putusan": """
        Tanggal Putusan | Tanggal Penetapan | Status Putusan | No | Nama | Putusan |
        Nilai Ganti Kerugian (Rp.) | Tanggal Penetapan Hakim Pengawas |
        Nomor Penetapan Hakim Pengawas | Hakim Pengawas | Kurator |
        Tanggal pengumuman dalam Berita Negara RI | Tanggal dimuat dalam Surat Kabar |
        Nama Surat Kabar | Pemberitahuan Putusan | Pemberitahuan Penetapan | Status |
        Tanggal Pemberitahuan Putusan | Menerima Putusan | Kirim Salinan Putusan |
        Kirim Salinan Penetapan | Kirim Salinan Putusan Kepada Penyidik |
        Kirim Salinan Penetapan Kepada Penyidik | Tanggal Minutasi | Keterangan |
        Putusan Verstek | Sumber Hukum | Amar Putusan | Petikan Penetapan | Amar Penetapan
    """,
    "tab:putusan_sela": """
        Tanggal Putusan Sela | Amar Putusan Sela | Tanggal Media Berita | Nama Media Berita |
        Tanggal Penetapan Hakim Pengawas | Tanggal Surat Kabar | Nama Surat Kabar |
        Hakim Pengawas | Pengurus Nama | Tanggal Perpanjangan | Perpanjangan |
        Tanggal Penetapan Sita Jaminan | Tanggal Pelaksanaan Sita Jaminan |
        Pemberitahuan Putusan Sela Kepada | Pemberitahuan Putusan Sela Kepada Pihak
    """,
    "tab:banding": """
        DATA PARA PIHAK | No | Status | Nama | Diwakili | Diwakili Oleh | DATA PEMOHON BANDING |
        Tanggal Permohonan | Tanggal Permohonan Banding | Pemohon Banding | Keterangan |
        DATA MEDIASI |
        Tanggal Kesepakatan Perdamaian | Tanggal Pengajuan Kesepakatan Perdamaian |
        Data Mediator | Status Mediator | Tanggal Pengiriman Hasil Kesepakatan ke Tingkat Banding |
        TANGGAL PEMBERITAHUAN PERMOHONAN BANDING | Tanggal | TANGGAL PENERIMAAN MEMORI BANDING |
        TANGGAL PENYERAHAN MEMORI BANDING | TANGGAL PENERIMAAN KONTRA MEMORI BANDING |
        TANGGAL PENYERAHAN KONTRA MEMORI BANDING | TANGGAL PEMBERITAHUAN INZAGE |
        TANGGAL PENGIRIMAN BERKAS BANDING | Tanggal Pengiriman Berkas Banding |
        Nomor Surat Pengiriman Berkas Banding | PUTUSAN BANDING | Tanggal Putusan Banding |
        Nomor Putusan Banding | Amar Putusan Banding | Majelis Hakim Banding |
        Panitera Pengganti Banding | Tanggal Penerimaan Kembali Berkas Banding |
        Tanggal Pengarsipan Banding | TANGGAL PEMBERITAHUAN PUTUSAN BANDING
    """,
    "tab:kasasi": """
        DATA PARA PIHAK | No | Status | Nama | Diwakili | Diwakili Oleh | DATA PEMOHON KASASI |
        Tanggal Permohonan | Tanggal Permohonan Kasasi | Pemohon Kasasi | Keterangan |
        DATA MEDIASI |
        Tanggal Kesepakatan Perdamaian | Tanggal Pengajuan Kesepakatan Perdamaian |
        Data Mediator | Status Mediator | Tanggal Pengiriman Hasil Kesepakatan ke MA |
        TANGGAL PEMBERITAHUAN PERMOHONAN KASASI | Tanggal | TANGGAL PENERIMAAN MEMORI KASASI |
        TANGGAL PENYERAHAN MEMORI KASASI | TANGGAL PENERIMAAN KONTRA MEMORI KASASI |
        TANGGAL PENYERAHAN KONTRA MEMORI KASASI | TANGGAL PEMBERITAHUAN INZAGE |
        TANGGAL PENGIRIMAN BERKAS KASASI | Tanggal Pengiriman Berkas Kasasi |
        Nomor Surat Pengiriman Berkas Kasasi | PUTUSAN KASASI | Tanggal Putusan Kasasi |
        Nomor Putusan Kasasi | Amar Putusan Kasasi | Majelis Hakim Kasasi |
        Panitera Pengganti Kasasi | Tanggal Penerimaan Kembali Berkas Kasasi |
        Tanggal Pengarsipan Kasasi | TANGGAL PEMBERITAHUAN PUTUSAN KASASI
    """,
    "tab:pk": """
        DATA PARA PIHAK | No | Status | Nama | DATA PERMOHONAN PK | Tanggal Permohonan |
        Pemohon PK | Keterangan | DATA MEDIASI | Tanggal Kesepakatan Perdamaian |
        Tanggal Pengajuan Kesepakatan Perdamaian | Data Mediator | Status Mediator |
        Tanggal Pengiriman Hasil Kesepakatan ke MA | TANGGAL PEMBERITAHUAN PERMOHONAN PK |
        Tanggal | TANGGAL PENERIMAAN MEMORI PK | TANGGAL PENYERAHAN MEMORI PK |
        TANGGAL PENERIMAAN KONTRA MEMORI PK | TANGGAL PENYERAHAN KONTRA MEMORI PK |
        TANGGAL PENGIRIMAN BERKAS PK | Tanggal Pengiriman Berkas PK |
        Nomor Surat Pengiriman Berkas PK | PUTUSAN PK | Tanggal Putusan PK | Nomor Putusan PK |
        Amar Putusan PK | Majelis Hakim PK | Panitera Pengganti PK | Tanggal Pengarsipan PK |
        TANGGAL PEMBERITAHUAN PUTUSAN PK
    """,
    "tab:grasi": """
        Nomor Perkara PN | Putusan PN | Nomor Perkara Banding | Putusan Banding |
        Nomor Perkara Kasasi | Putusan Kasasi | Nomor Perkara PK | Putusan PK |
        Permohonan Grasi | Permohonan Penundaan Pidana | Nama Terdakwa | Nama Pemohon |
        Pekerjaan Pemohon | Alamat Pemohon | Pemberitahuan Putusan Tetap |
        Menjalani Pidana Pengganti | Terpidana Dalam Tahanan | Denda Dibayar | Barang Rampasan |
        Tanggal Pertimbangan Mahkamah Agung | Isi Pertimbangan Mahkamah Agung |
        Pengiriman Berkas Grasi ke Kejaksaan negeri |
        Nomor Surat Pengiriman Berkas Grasi ke Kejaksaan Negeri | Pengiriman Berkas Grasi ke MA |
        Nomor Surat Pengiriman Berkas Grasi ke MA | Pengiriman Pertimbangan Hakim Grasi |
        Tanggal Putusan Presiden | Nomor Putusan Presiden | Isi Keputusan Presiden |
        Tanggal Penerimaan Kembali Berkas Grasi |
        Pemberitahuan Putusan Grasi Kepada Pemohon dan Jaksa |
        Penerimaan Tembusan Berita Acara Pelaksanaan Putusan Dari Penuntut Umum | Keterangan
    """,
    "tab:eksekusi": """
        Nomor Perkara Kassi | Alasan Eksekusi | Tanggal Penetapan Teguran Eksekusi |
        Nomor Penetapan Teguran Eksekusi | Tanggal Pelaksanaan Teguran Eksekusi |
        Tanggal Penetapan Sita Eksekusi | Nomor Penetapan Sita Eksekusi |
        Tanggal Penetapan Perintah Eksekusi Riil | Tanggal Pelaksanaan Eksekusi Riil |
        Tanggal Penetapan Non-Eksekusi |
        DAFTAR PUTUSAN BERKEKUATAN HUKUM TETAP | Nomor Perkara PN | Tanggal Putusan PN |
        Nomor Perkara Banding | Tanggal Putusan Banding | Nomor Perkara Kasasi |
        Tanggal Putusan Kasasi | Nomor Perkara Peninjauan Kembali |
        Tanggal Putusan Peninjauan Kembali | DATA PERMOHONAN EKSEKUSI | Tanggal Permohonan |
        Pemohon Eksekusi | Pihak Yang dimohonkan Eksekusi | STATUS PARA PIHAK | No. | Nama |
        Status | Nomor Perkara Yang Dieksekusi | Amar Putusan Yang Diesekusi |
        Tanggal diterima permohonan | Panggilan Para Pihak | Penetapan Ketua |
        Tanggal Surat Ketua Bahwa Objek Sengketa Tidak Mempunyai Kekuatan Hukum Lagi |
        Putusan Yang Tidak Dapat Dilaksanakan |
        Tanggal Surat Tergugat Tentang Objek Sengketa Non Executable |
        Tanggal Panggilan Kepada Para Pihak | Tanggal Upaya Kesepakatan Kompensasi |
        Tanggal Penetapan Ketua Tentang Kompensasi | Tanggal Upaya Hukum kepada Ketua MA |
        Tanggal Penetapan Ketua MA Tentang Kompensasi |
        Jumlah Uang Paksa (Rp) dalam Amar Putusan Hakim |
        Jumlah Uang Paksa (Rp) dalam Amar Penetapan Ketua |
        Tanggal Surat Ketua kepada Tergugat tentang Pembayaran Uang Paksa |
        Tanggal Surat Peringatan | Sanksi Administrastif |
        Tanggal Perintah Ketua kepada Pejabat yang Berwenang Menjatuhkan Sanksi Administrastif |
        Tanggal Penjatuhan Administastif dari Pejabat yang Berwenang |
        Pengumuman Pada Media Massa/Surat Kepada Presiden dan Lembaga Perwakilan Rakyat |
        Tanggal Penetapan Ketua kepada Panitera/Jurusita Pengganti |
        Tanggal Pengumuman kepada Media Massa | Tanggal Surat Kepada Presiden |
        Tanggal Surat Kepada Lembaga Perwakilan Rakyat | Alasan Permohonan Eksekusi | Jurusita |
        PELAKSANAAN TEGURAN EKSEKUSI | Tanggal Penetapan | Nomor Penetapan |
        Tanggal Pelaksanaan Pertama | Tanggal Pelaksanaan Kedua | PELAKSANAAN SITA EKSEKUSI |
        Tanggal Pelaksanaan | PELAKSANAAN EKSEKUSI | Jenis Pelaksanaan |
        Tanggal Penetapan Perintah Eksekusi | Tanggal Pelaksanaan Eksekusi |
        Tanggal Penetapan Perintah Eksekusi Lelang | Tanggal Pelaksanaan Eksekusi Lelang |
        Tanggal Penyerahan Hasil Lelang | Tanggal Penetapan Non Executable |
        Alasan Eksekusi Tidak Dapat Dilaksanakan | Keterangan Lain
    """,
    "tab:biaya_perkara": """
        No | Tanggal Transaksi | Uraian | nominal | Pemasukan | Pengeluaran | Sisa | Keterangan |
        Total |
        Biaya Proses | Biaya Proses Tingkat Pertama | Biaya Banding | Biaya Kasasi |
        Biaya Peninjauan Kembali | Biaya Eksekusi
    """,
    "tab:barang_bukti": """
        Tanggal Penerimaan | Jenis dan Uraian lengkap Barang Bukti | Tempat Penyimpanan |
        Tempat Penyerahan | Nama Penerima | Tgl Penyerahan Barang Bukti | Catatan
    """,
    "tab:diversi": """
        Pembimbing Kemasyarakatan | Tanggal Penetapan Musyawarah Diversi |
        Tanggal Musyawarah Diversi | Kesepakatan Pelaksanaan Musyawarah Diversi |
        Tanggal Hasil Musyawarah Diversi | Hasil Diversi |
        Tanggal Laporan Hakim Fasilitator Kepada Ketua Pengadilan Negeri |
        Nomor Penetapan Kesepakatan Diversi | Tanggal Penetapan Kesepakatan Diversi |
        Tanggal Mulai Pelaksanaan Kesepakatan Diversi | Status Pelaksanaan Kesepakatan Diversi |
        Tgl. Laporan Pembimbing Kemasyarakatan Kepada Ketua Pengadilan Negeri |
        No. Laporan Pembimbing Kemasyarakatan Kepada Ketua Pengadilan Negeri | No | Nama
    """,
    "tab:intervensi": """
        PIHAK INTERVENSI | Nama Pemohon | Jenis Intervensi | Tergabung Ke Pihak |
        Tanggal Intervensi | Isi Petitum
    """,
    "tab:verzet": """
        DATA PERMOHONAN | Nomor Perkara | Tanggal Pendaftaran | Tanggal Berkekuatan Hukum Tetap |
        Nomor Perkara Verzet | Tanggal Pendaftaran Verzet | Putusan Verzet |
        Status Putusan Verzet | Amar Putusan Verzet |
        DATA PENETAPAN | Tanggal Penetapan Majelis | Majelis Hakim |
        Tanggal Penetapan Panitera Pengganti | Panitera Pengganti | Tanggal Penetapan Jurusita |
        Jurusita | Tanggal Penetapan Sidang Verzet | Tanggal Sidang Pertama Verzet |
        DATA MEDIASI | Tgl. Penetapan Mediator | No. Penetapan Mediator | Data Mediator | No |
        Nama | Status Mediator | Tgl. Mulai Mediasi | Tgl. Hasil Mediasi | Hasil Mediasi |
        DATA PUTUSAN | Putusan | Putusan Verstek | Sumber Hukum | Status Putusan | Amar Putusan |
        DATA PEMBERITAHUAN | Pemberitahuan Putusan
    """,
    "tab:rekonvensi": "Tanggal Pendaftaran | Para Pihak | Isi Petitum",
    "tab:dismissal": """
        Data Panggilan Dismissal | Jadwal Panggilan Dismissal | No | Tanggal Panggilan |
        Status Kehadiran | Data Penetapan Dismissal | Tanggal Penetapan | Penetapan Dismissal |
        Pertimbangan Hukum dan Amar | Amar Penetapan | Pemberitahuan Putusan | Status | Nama |
        Tanggal Pemberitahuan Putusan | Data Pemberitahuan Penetapan Dismissal |
        Pemberitahuan Kepada Penggugat | Pemberitahuan Kepada Tergugat
    """,
    "tab:penetapan_gugur": """
        No | Tanggal Penetapan | Amar Penetapan | Pemberitahuan Putusan | Status | Nama |
        Tanggal Pemberitahuan Putusan
    """,
    "tab:keberatan": """
        DATA PARA PIHAK | Tanggal Permohonan | Para Pihak | DATA PROSES KEBERATAN |
        Tanggal Penerimaan Memory | Tanggal Penyerahan Memory | Tanggal Penerimaan Kontra Memory |
        Tanggal Penyerahan Kontra Memory | DATA MEJELIS HAKIM | Tanggal Penetapan Hakim |
        Majelis Hakim | DATA PANITERA PENGGANTI | Tanggal Penetapan Panitera Pengganti |
        Panitera Pengganti | DATA JURUSITA | Tanggal Penetapan Jurusita | Jurusita |
        DATA PUTUSAN | Tanggal Putusan | Status Putusan | Amar Putusan | DATA PEMBERITAHUAN |
        Tanggal Pemberitahuan Pemohon | Tanggal Pemberitahuan Termohon
    """,
    "tab:ikrar_talak": """
        Data Permohonan Verzet | Tanggal Putusan Tingkat Pertama |
        Tanggal Berkekuatan Hukum Tetap | Data Penetapan | Tanggal Penetapan Majelis |
        Majelis Hakim | Tanggal Penetapan Panitera Pengganti | Panitera Pengganti |
        Tanggal Penetapan Jurusita | Jurusita | Tanggal Penetapan Sidang Ikrar Talak |
        Tanggal Sidang Pertama Ikrar Talak | Tanggal Ikrar | Status Penetapan Ikrar |
        Amar Penetapan Ikrar Talak
    """,
    "tab:perbaikan_gugatan": """
        Tanggal Saran Perbaikan Gugatan | Saran Perbaikan | Perbaikan/Dinyatakan Lengkap |
        Tanggal Perbaikan/Dinyatakan Lengkap | Petitum
    """,
    "tab:pen_persiapan": """
        Tanggal Penetapan Pemeriksaan Pendahuluan | Tanggal Pemeriksaan Persiapan |
        Posita dan Petitum | No | Tanggal | Agenda | Pukul | Keterangan
    """,
    "tab:we_kppu": """
        Tanggal Surat KPPU | Nomor Surat KPPU | Tanggal Penetapan MA | Nomor Penetapan MA |
        Pengadilan Yang Berwenang
    """,
    "tab:laporan_pengurus": "No | Nomor Laporan | Tanggal Laporan | Deskripsi",
    "tab:pembatalan_perdamaian": """
        No | Nomor Perkara | Tanggal Register | Klasifikasi Perkara | Status Perkara
    """,
    "tab:rencana_perdamaian": """
        Agenda | Alasan Ditunda | JADWAL DAN HASIL RAPAT | No | Tanggal Rapat | Jam Rapat |
        Agenda / Alasan Ditunda |
        Tempat Rapat | PEMBETULAN BERITA ACARA RAPAT PEMUNGUTAN SUARA | Nomor Perkara |
        Tanggal Register | Klasifikasi Perkara | Status Perkara | HASIL PEMUNGUTAN SUARA |
        Tanggal Pemungutan Suara | Amar Hasil Pemungutan Suara | Hasil Pemungutan Suara
    """,
    "tab:pkpu_sementara": """
        Nomor Penetapan | Nama Surat Kabar 1 | Nama Surat Kabar 2 | Tempat Rapat Kreditor Pertama |
        Batas Akhir Pengajuan Tagihan Kreditor |
        Tanggal Rapat Pencocokan Piutang dan Verifikasi Pajak |
        Tempat Rapat Pencocokan Piutang dan Verifikasi Pajak | Jenis Media | Nama Media |
        Agenda | Alasan Ditunda | Nomor Permohonan | Nama Pemohon | Tipe Pemohon |
        Nomor Surat/Penetapan | Tanggal Surat/Penetapan | Hakim Pengawas |
        PUTUSAN PKPU SEMENTARA | Tanggal Putusan | Amar Putusan |
        Pemberitahuan Putusan Kepada Pemohon | Pemberitahuan Putusan Kepada Termohon |
        PENUNJUKAN HAKIM PENGAWAS | Tanggal Penunjukan | Nomor Penunjukan | Nama Hakim | Aktif |
        PENUNJUKAN PENGURUS | Nomor Surat/ Putusan Penunjukan | Nama Pengurus | PUBLISITAS |
        PENETAPAN PUBLISITAS | No | Tanggal | Isi Penetapan | LAPORAN PUBLISITAS |
        Tanggal Publisitas | Media | RAPAT KREDITOR PERTAMA | JADWAL DAN HASIL RAPAT |
        Tanggal Rapat | Jam | Agenda/Alasan Ditunda | Tempat Rapat | TINDAKAN HAKIM PENGAWAS |
        Jenis Permohonan | Detil Permohonan | Detil Surat / Penetapan Hakim Pengawas |
        RAPAT KREDITOR LANJUTAN | PENCOCOKAN PIUTANG DAN VERIFIKASI | BANTAHAN TAGIHAN |
        Tanggal Pengajuan Bantahan | Pemohon | Hasil Bantahan
    """,
    "tab:pkpu_tetap": """
        Agenda | Alasan Ditunda | PENGAMBILAN SUARA | No | Tanggal Rapat | Jam |
        Agenda/Alasan Ditunda | Tempat Rapat |
        PUTUSAN PKPU TETAP | PUTUSAN PKPU TETAP PERTAMA | Tanggal Putusan | Amar Putusan |
        Pemberitahuan Putusan Kepada Pemohon | Pemberitahuan Putusan Kepada Termohon |
        PUTUSAN PKPU TETAP LANJUTAN
    """,
}
#: Patterns (full match) of a page kind's labels that carry a variable part.
_PAGE_PATTERNS: dict[str, tuple[str, ...]] = {
    "list": (
        # the court database's last sync time, and the list's total (checked as data)
        (
            r"Pembaharuan Data\s*:?\s*((\w+,\s*)?\d{1,2} \w{3,9}\.? \d{4}"
            r"( \d{2}:\d{2}(:\d{2})?)?( WI[BT]A?)?)?"
        ),
    ),
    "tab:verzet": (
        (
            r"Tanggal Pemberitahuan Putusan (Verzet |Verstek |Perlawanan )?Kepada "
            r"(Penggugat|Tergugat)"
        ),
    ),
}

#: Patterns cut out of a text node (anywhere in it) before the rest is checked (rule 4): page
#: chrome printed in one text node with data.
_CUT_PATTERNS: dict[str, tuple[str, ...]] = {
    # the court database's last sync time before the list's total (the total is data)
    "list": (
        (
            r"Pembaharuan Data\s*:\s*(\w+,\s*)?\d{1,2} \w{3,9}\.? \d{4}"
            r"( \d{2}:\d{2}(:\d{2})?)?( WI[BT]A?)?"
        ),
    ),
}

#: Page kind -> labels, headings and column names it prints around its data (lower case).
#: page -> {a value word an older app version prints: the word the current views print for
#: the same stored value}, lower-case; a node of the older word is found when the later one is
#: data (dismissal.php:82 of the 2021 views: hasil 1 Diterima, else Ditolak; 2025: Lolos /
#: Tidak Lolos)
OLDER_WORDS: dict[str, dict[str, str]] = {
    "tab:dismissal": {"diterima": "lolos", "ditolak": "tidak lolos"},
}

BOILERPLATE: dict[str, frozenset[str]] = {}
#: Page kind -> patterns (full match, case-insensitive) of boilerplate texts.
BOILERPLATE_PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {}


def _words(text: str) -> frozenset[str]:
    return frozenset(" ".join(w.split()).lower() for w in text.split("|") if w.strip())


for _page, _text in {**_PAGES, "tab:*": ""}.items():
    BOILERPLATE[_page] = _words(_COMMON) | _words(_text)
    BOILERPLATE_PATTERNS[_page] = tuple(
        re.compile(p, re.IGNORECASE) for p in (*_COMMON_PATTERNS, *_PAGE_PATTERNS.get(_page, ()))
    )

#: A text node of two words or more and this long (or longer) is found anywhere inside a data
#: string (a piece of a long text split by inline markup); a shorter one must equal one, or
#: start or end one.
SUBSTRING_MIN = 8


def allowed_words(page: str) -> frozenset[str]:
    """The boilerplate words of a page kind (a tab without a list: the common words only)."""
    return BOILERPLATE.get(page, BOILERPLATE["tab:*"])


def allowed_patterns(page: str) -> tuple[re.Pattern[str], ...]:
    return BOILERPLATE_PATTERNS.get(page, BOILERPLATE_PATTERNS["tab:*"])


# ------------------------------------------------------------------------------ the texts


def visible_texts(html: str) -> list[str]:
    """The page's visible texts in document order, whitespace collapsed, non-empty: the text
    between two breaks (a block element's edge, ``<br>``), inline markup (``<b>``, ``<font>``,
    ``<a>``, ...) running through."""
    return [text for text, _ in visible_text_cells(html)]


def visible_text_cells(html: str) -> list[tuple[str, bool]]:
    """:func:`visible_texts`, each with whether it is the whole text of its row's first cell.

    ``</br>`` (SIPP's templates print it) is a line break, as in a browser (HTML's parsing
    rules read it as ``<br>``; libxml2 would drop it and run two lines together).
    """
    doc = lxml.html.document_fromstring(_END_BR.sub("<br>", html))
    out: list[tuple[str, bool]] = []
    buf: list[str] = []

    def flush(whole_cell: bool = False) -> None:
        cleaned = clean_text("".join(buf))
        buf.clear()
        if cleaned and not _PUNCT.fullmatch(cleaned):
            out.append((cleaned, whole_cell))

    def walk(el: Any) -> None:
        tag = el.tag.lower() if isinstance(el.tag, str) else ""
        if tag and tag not in _SKIP and not _SKIP_CLASSES & set(el.get("class", "").split()):
            inline = tag in _INLINE
            if not inline:
                flush()
            is_first = tag in ("td", "th") and _is_first_cell(el)
            start = len(out)
            buf.append(el.text or "")
            for child in el:
                walk(child)
            if not inline:
                flush(whole_cell=is_first and len(out) == start)
        buf.append(el.tail or "")

    walk(doc)
    flush()
    return out


def _is_first_cell(cell: Any) -> bool:
    row = cell.getparent()
    if row is None:
        return False
    for sibling in row:
        if isinstance(sibling.tag, str) and sibling.tag.lower() in ("td", "th"):
            return bool(sibling is cell)
    return False


def data_strings(data: Any) -> Iterator[str]:
    """Every string in ``data`` (values only; object keys are field names), every line of a
    multi-line string, every number as decimal; whitespace collapsed."""
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            stack.extend(value)
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, int | float):
            yield str(value)
        elif isinstance(value, str):
            cleaned = clean_text(value)
            if cleaned:
                yield cleaned
            if "\n" in value:
                for line in value.split("\n"):
                    line = clean_text(line)
                    if line:
                        yield line


class Coverage:
    """The data of one page, ready to answer "is this text in it?"."""

    def __init__(self, data: Any, page: str) -> None:
        strings = set(data_strings(data))
        self.exact = {s.lower() for s in strings}
        self.haystack = "\x00".join(sorted(s.lower() for s in strings))
        self.page = page
        self.words = allowed_words(page)
        self.patterns = allowed_patterns(page)
        # longest first, so "Hakim Ketua" goes before "Hakim"; data before boilerplate (a label
        # ending in a word the data starts with), then boilerplate before data (a numbered
        # label, "Nama Surat Kabar 1", whose number is also a data value)
        data_cuts = sorted(self.exact, key=len, reverse=True)
        word_cuts = sorted(self.words, key=len, reverse=True)
        self.cut_orders = ([*data_cuts, *word_cuts], [*word_cuts, *data_cuts])
        self.cut_patterns = [re.compile(p, re.IGNORECASE) for p in _CUT_PATTERNS.get(page, ())]

    def in_data(self, text: str) -> bool:
        low = text.lower()
        if low in self.exact:
            return True
        anywhere = len(low) >= SUBSTRING_MIN and " " in low
        # else a line the parser joined to the next or previous one: the start or end of a string
        if _occurs_bounded(self.haystack, low, anywhere=anywhere):
            return True
        return self._normalised_in_data(text)

    def _normalised_in_data(self, text: str) -> bool:
        if _NUMBER.fullmatch(text) and _plain_number(text) in self.exact:
            return True
        later = OLDER_WORDS.get(self.page, {}).get(text.lower())
        if later is not None and later in self.exact:
            return True
        if (days := _DAYS.fullmatch(text)) and days.group(1) in self.exact:
            return True
        for convert in (parse_date, parse_money):
            try:
                value = convert(text)
            except ValueError:
                continue
            if value is not None and str(value).lower() in self.exact:
                return True
        return False

    def boilerplate(self, text: str, *, first_cell: bool = False) -> bool:
        low = text.lower().rstrip(" :")
        if low in self.words or any(p.fullmatch(text) for p in self.patterns):
            return True
        return (first_cell or self.page == "list") and _ROW_NUMBER.fullmatch(text) is not None

    def covered(self, text: str, *, first_cell: bool = False) -> bool:
        if self.in_data(text) or self.boilerplate(text, first_cell=first_cell):
            return True
        return self._made_of_found_parts(text)

    def _cut_if(self, text: str, convert: Any) -> str:
        """`` `` when ``text`` normalised by ``convert`` is data, else ``text``."""
        try:
            value = convert(text)
        except ValueError:
            return text
        return " " if value is not None and str(value).lower() in self.exact else text

    def _made_of_found_parts(self, text: str) -> bool:
        rest = text
        for pattern in self.cut_patterns:
            rest = pattern.sub(" ", rest)
        rest = _DATE_IN_TEXT.sub(lambda m: self._cut_if(m.group(0), parse_date), rest)
        rest = _MONEY_IN_TEXT.sub(lambda m: self._cut_if(m.group(0), parse_money), rest)
        rest = _NUMBER.sub(
            lambda m: " " if _plain_number(m.group(0)) in self.exact else m.group(0), rest
        )
        rest = rest.lower()
        for cuts in self.cut_orders:
            left = rest
            for cut in cuts:
                if cut in left:
                    left = re.sub(_bounded(cut), " ", left)
            if _PUNCT.fullmatch(left) is not None:
                return True
        return False


def _plain_number(text: str) -> str:
    """``3.101`` / ``1,500,000`` / ``125000000.00`` -> ``"3101"`` / ``"1500000"`` / ...."""
    whole = re.sub(r"[.,]0{1,2}$", "", text) if re.fullmatch(r"\d+[.,]0{1,2}", text) else text
    return whole.replace(".", "").replace(",", "")


def _is_word(char: str) -> bool:
    """Whether ``char`` is a regex ``\\w`` character (``""``, an edge, is not)."""
    return bool(char) and (char.isalnum() or char == "_")


def _occurs_bounded(haystack: str, phrase: str, *, anywhere: bool) -> bool:
    """Whether ``phrase`` occurs in ``haystack`` (data strings joined by ``\\x00``) not inside a
    longer word, as :func:`_bounded` matches it: anywhere (``anywhere``), or else only at the
    start or the end of one of the strings. Plain ``str.find``: a regex per text, compiled
    for each of thousands of distinct texts, cost most of the suite's coverage check."""
    check_head = phrase[:1].isalnum()
    check_tail = phrase[-1:].isalnum()
    start = haystack.find(phrase)
    while start >= 0:
        end = start + len(phrase)
        before = haystack[start - 1] if start else ""
        after = haystack[end] if end < len(haystack) else ""
        head_ok = not (check_head and _is_word(before))
        tail_ok = not (check_tail and _is_word(after))
        if anywhere and head_ok and tail_ok:
            return True
        if (before in ("", "\x00") and tail_ok) or (after in ("", "\x00") and head_ok):
            return True
        start = haystack.find(phrase, start + 1)
    return False


def _bounded(phrase: str) -> str:
    """A regex of ``phrase`` not inside a longer word (a word-boundary check only at an end
    that is a word character: ``M.H.`` is cut from ``M.H.Hakim``)."""
    head = r"(?<!\w)" if phrase[:1].isalnum() else ""
    tail = r"(?!\w)" if phrase[-1:].isalnum() else ""
    return head + re.escape(phrase) + tail


def dropped_texts(page: str, html: str, data: Any) -> list[str]:
    """The visible texts of ``html`` (a ``page``: ``list``, ``detail``, ``tab:<slug>``) that
    are neither in ``data`` nor boilerplate, in page order."""
    coverage = Coverage(data, page)
    return [
        text
        for text, first in visible_text_cells(html)
        if not coverage.covered(text, first_cell=first)
    ]
