"""Evidence trust benchmark: wall time of an RFC 3161 timestamp (request, verify) from the demo
TSA on loopback, and of signing (PAdES B-LTA: timestamp, validation data, document timestamp) and validating a report PDF.

    .venv/bin/python bench/evidence_trust_bench.py [--rounds 20]

The four steps run in turn, round by round, in this process; medians and 95th percentiles in
milliseconds. The demo TSA runs `openssl ts -reply` per request; a real TSA adds its network
round trip. The PDF is a one-page WeasyPrint report (Chinese and English).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    from weasyprint import HTML

    from lib.evidence.demo_tsa import start_demo_tsa
    from lib.evidence.signing import load_or_create_identity, sign_pdf, validate_signed_pdf
    from lib.evidence.timestamp import TsaConfig, request_timestamp, verify_timestamp

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as folder:
        tsa = start_demo_tsa(Path(folder) / "tsa")
        try:
            config, root = TsaConfig(urls=(tsa.url,)), tsa.ca_cert_path.read_bytes()
            identity = load_or_create_identity(Path(folder) / "signing")
            signer_cert = identity.cert_path.read_bytes()
            pdf = HTML(string="<h1>侵权证据报告 Evidence report</h1><p>孙悟空……</p>").write_pdf()
            sign_lta = functools.partial(sign_pdf, trusted_tsa_certs=[root])
            times: dict[str, list[float]] = {"timestamp request": [], "timestamp verify": [],
                                             "PDF sign (B-LTA)": [], "PDF validate": []}
            for n in range(rounds):
                digest = hashlib.sha256(str(n).encode()).digest()
                token = _timed(times["timestamp request"], request_timestamp, digest, config)
                _timed(times["timestamp verify"], verify_timestamp, token.response, digest, [root])
                signed = _timed(times["PDF sign (B-LTA)"], sign_lta, pdf, identity, config)
                assert signed.level == "B-LTA", signed.note
                check = _timed(times["PDF validate"], validate_signed_pdf, signed.data,
                               [signer_cert], [root])
                assert check.ok
        finally:
            tsa.stop()
    print(f"| step ({rounds} rounds) | median ms | p95 ms |\n|---|---|---|")
    for step, values in times.items():
        p95 = statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]
        print(f"| {step} | {statistics.median(values) * 1000:.1f} | {p95 * 1000:.1f} |")


def _timed(into: list[float], function, *args):
    start = time.perf_counter()
    result = function(*args)
    into.append(time.perf_counter() - start)
    return result


if __name__ == "__main__":
    main()
