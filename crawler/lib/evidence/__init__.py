"""Trust for captured evidence, Django-free: RFC 3161 timestamps from third-party time-stamping
authorities (timestamp), a demo authority on loopback (demo_tsa), and PAdES signatures of PDF
reports (signing). Everything is configured by arguments: the Django side fills TsaConfig from
settings."""
