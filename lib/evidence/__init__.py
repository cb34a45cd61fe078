"""Evidence of matched pages, Django-free: WARC records of a raw HTTP exchange (warc), the WACZ
bundle (bundle) and its verification (verify), RFC 3161 timestamps from third-party
time-stamping authorities (timestamp), a demo authority on loopback (demo_tsa), and PAdES
signatures of PDF reports (signing). Everything is configured by arguments: the Django side
fills TsaConfig from settings."""
