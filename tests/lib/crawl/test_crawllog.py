"""The crawl log (lib.crawl.crawllog) expires: a TTL index on the date each record was written."""

from lib.crawl.config import CrawlConfig
from lib.crawl.crawllog import CrawlLog


def test_records_carry_a_date_that_a_ttl_index_expires_and_a_changed_ttl_is_applied(mongo_db):
    assert CrawlConfig().crawl_log_ttl_seconds == 30 * 24 * 3600
    month = CrawlLog(mongo_db, 30 * 24 * 3600)
    month.ensure_indexes()
    month.record(7, "http://x.cn/a", "ok", status=200)
    ttl = mongo_db["crawl_log"].index_information()["crawl_log_ttl"]
    assert ttl["key"] == [("at", 1)] and ttl["expireAfterSeconds"] == 30 * 24 * 3600
    # MongoDB's TTL monitor removes only documents whose field is a BSON date
    assert mongo_db["crawl_log"].count_documents({"at": {"$type": "date"}}) == 1
    week = CrawlLog(mongo_db, 7 * 24 * 3600)
    week.ensure_indexes()  # the index exists with another TTL: the new one replaces it
    ttl = mongo_db["crawl_log"].index_information()["crawl_log_ttl"]
    assert ttl["expireAfterSeconds"] == 7 * 24 * 3600
    assert week.entries(7)[0]["outcome"] == "ok"
