"""Word lists the generator draws from: names, places, offences, agendas (no real persons)."""

from __future__ import annotations

FIRST_NAMES_M = (
    "AHMAD",
    "BUDI",
    "AGUS",
    "EKO",
    "HENDRA",
    "RUDI",
    "JOKO",
    "DEDI",
    "IWAN",
    "SUPARMAN",
    "BAMBANG",
    "YUSUF",
    "RIZKY",
    "FAJAR",
    "DANI",
    "MUHAMMAD",
    "ARIF",
    "HERU",
    "SLAMET",
    "WAHYU",
    "TEGUH",
    "IMAM",
    "GUNAWAN",
    "ANDI",
    "MA'RUF",
    "KETUT",
    "I MADE",
    "YOHANES",
    "STEFANUS",
)
FIRST_NAMES_F = (
    "SITI",
    "DEWI",
    "RINA",
    "SRI",
    "NUR",
    "ANI",
    "FITRI",
    "LESTARI",
    "YULIANA",
    "WULANDARI",
    "RATNA",
    "INDAH",
    "PUTRI",
    "MARIA",
    "NI LUH",
    "KARTIKA",
    "ENDANG",
    "HANDAYANI",
)
LAST_NAMES = (
    "SETIAWAN",
    "SANTOSO",
    "HIDAYAT",
    "SAPUTRA",
    "WIJAYA",
    "KURNIAWAN",
    "PRATAMA",
    "NUGROHO",
    "LUBIS",
    "SIREGAR",
    "NASUTION",
    "SIMANJUNTAK",
    "HUTAPEA",
    "SINAGA",
    "PURBA",
    "GINTING",
    "RAHMAN",
    "HASIBUAN",
    "TANJUNG",
    "MAULANA",
    "SETIAWATI",
    "SUSANTI",
    "WATI",
    "RAHAYU",
)
FATHER_NAMES = ("SUPARMAN", "SLAMET", "ABDULLAH", "SUKIRMAN", "KASIM", "SAMSUDIN", "MUCHTAR")
COMPANIES = (
    "PT. BANK PERKREDITAN RAKYAT SEJAHTERA",
    "PT. MAJU & JAYA ABADI",
    "CV. SUMBER REJEKI",
    "PT. SINAR HARAPAN FINANCE",
    "KOPERASI SIMPAN PINJAM MITRA USAHA",
    "PT. ANUGERAH PROPERTI NUSANTARA",
    'CV. KARYA "BERSAMA" MANDIRI',
)
TITLES_JAKSA = ("S.H.", "S.H., M.H.", "S.H., M.Hum.")
TITLES_LAWYER = ("S.H.", "S.H., M.H.", "S.H., M.Kn.", "S.H., LL.M.")
JUDGES = (
    "Dr. HARYANTO, S.H., M.H.",
    "SRI WAHYUNI BATUBARA, S.H., M.H.",
    "I GUSTI NGURAH PARTHA, S.H.",
    "RATNA DEWI, S.H., M.Hum.",
    "MUHAMMAD YUSUF, S.H.",
    "ARIEF BUDIMAN, S.H., M.H.",
    "TUTIK SUSILOWATI, S.H.",
    "Drs. H. ABDUL MANAN, M.H.",
    "Dra. Hj. NURHAYATI, M.H.I.",
    "H. SYAMSUL ARIFIN, S.Ag., M.H.",
)
CLERKS = (
    "SUPRIYADI, S.H.",
    "ENDAH PURWANINGSIH, S.H.",
    "YULIANI, S.H., M.H.",
    "MUHAMMAD RIDWAN, S.H.",
    "DIAN PERMATASARI, S.H.",
    "HERLINA, S.Ag.",
)
BAILIFFS = ("AHMAD SAFEI", "SUTRISNO", "NURDIN, S.H.", "RAHMAT HIDAYAT", "SUMARNI")
MEDIATORS_NON_HAKIM = ("Dr. LINDA KUSUMA, S.H., M.H.", "BAMBANG SUGIHARTO, S.H., C.Me.")
ROOMS = ("Ruang Sidang Cakra", "Ruang Sidang Kartika", "Ruang Sidang Sari", "Ruang Sidang Anak")

PIDANA_B = (
    ("Pencurian", "Pasal 362 KUHP", "mengambil barang sesuatu berupa 1 (satu) unit sepeda motor"),
    (
        "Pencurian dengan Pemberatan",
        "Pasal 363 Ayat (1) ke-4 KUHP",
        "mengambil 1 (satu) buah telepon genggam dan uang tunai",
    ),
    ("Penggelapan", "Pasal 372 KUHP", "memiliki dengan melawan hukum 1 (satu) unit mobil"),
    ("Penipuan", "Pasal 378 KUHP", "menggerakkan saksi korban untuk menyerahkan uang"),
    ("Penganiayaan", "Pasal 351 Ayat (1) KUHP", "melakukan penganiayaan terhadap saksi korban"),
    ("Penadahan", "Pasal 480 ke-1 KUHP", "membeli barang yang diketahui berasal dari kejahatan"),
)
PIDANA_SUS = (
    (
        "Narkotika",
        "Pasal 114 Ayat (1) UU RI No. 35 Tahun 2009 tentang Narkotika",
        "menjual Narkotika Golongan I bukan tanaman jenis sabu",
    ),
    (
        "Narkotika",
        "Pasal 112 Ayat (1) UU RI No. 35 Tahun 2009 tentang Narkotika",
        "memiliki, menyimpan, menguasai Narkotika Golongan I bukan tanaman",
    ),
    (
        "Perlindungan Anak",
        "Pasal 81 Ayat (1) UU RI No. 17 Tahun 2016",
        "melakukan kekerasan memaksa anak melakukan persetubuhan",
    ),
    (
        "Kesehatan",
        "Pasal 196 UU RI No. 36 Tahun 2009 tentang Kesehatan",
        "mengedarkan sediaan farmasi yang tidak memenuhi standar",
    ),
)
PIDANA_ANAK = (
    (
        "Pencurian",
        "Pasal 363 Ayat (1) ke-4 KUHP",
        "mengambil barang sesuatu berupa telepon genggam",
    ),
    (
        "Narkotika",
        "Pasal 127 Ayat (1) huruf a UU RI No. 35 Tahun 2009",
        "menyalahgunakan Narkotika Golongan I bagi diri sendiri",
    ),
    (
        "Penganiayaan",
        "Pasal 80 Ayat (1) UU RI No. 35 Tahun 2014",
        "melakukan kekerasan terhadap anak korban",
    ),
)
JINAYAT = (
    ("Maisir", "Pasal 18 Qanun Aceh Nomor 6 Tahun 2014", "melakukan jarimah maisir"),
    ("Khamar", "Pasal 15 Ayat (1) Qanun Aceh Nomor 6 Tahun 2014", "melakukan jarimah khamar"),
)
PERDATA_G = ("Wanprestasi", "Perbuatan Melawan Hukum", "Tanah", "Perceraian", "Hutang Piutang")
PERDATA_P = (
    "Perubahan Akta Catatan Sipil",
    "Pengangkatan Anak",
    "Perwalian",
    "Izin Jual Harta Anak Di Bawah Umur",
    "Pencatatan Kematian",
)
PERDATA_GS = ("Wanprestasi", "Perbuatan Melawan Hukum")
PA_G = ("Cerai Gugat", "Cerai Talak", "Harta Bersama", "Hak Asuh Anak", "Kewarisan")
PA_P = (
    "Pengesahan Perkawinan/Istbat Nikah",
    "Dispensasi Kawin",
    "P3HP/Penetapan Ahli Waris",
    "Wali Adhol",
    "Perwalian",
)
POSTPONE_CRIMINAL = (
    "Saksi tidak hadir",
    "Terdakwa sakit",
    "Penuntut Umum belum siap dengan tuntutan",
    "Majelis Hakim bermusyawarah",
)
POSTPONE_CIVIL = (
    "Tergugat tidak hadir",
    "Para pihak mengajukan bukti tambahan",
    "Majelis Hakim bermusyawarah",
    "Kuasa Penggugat belum melengkapi surat kuasa",
)
VEHICLES = (("Sepeda Motor", "SIM C"), ("Mobil Penumpang", "SIM A"), ("Mobil Barang", "SIM B I"))
PLATES = ("B", "D", "F", "AB", "BK", "L", "N", "DK")
EVIDENCE = (
    "1 (satu) unit sepeda motor Honda Beat warna hitam",
    "1 (satu) buah telepon genggam merk Samsung warna biru",
    "uang tunai sebesar Rp1.500.000,00 (satu juta lima ratus ribu rupiah)",
    "1 (satu) bungkus plastik klip berisi kristal bening dengan berat bersih 0,25 gram",
    "1 (satu) lembar kemeja lengan panjang warna putih",
    "1 (satu) buah pisau dapur bergagang kayu",
)
