"""harvest: resumable Scrapy harvest of Indonesian SIPP court case data."""
