"""The platforms' registry: the shipped file lists the six platforms with their complaint
channels; a file with an error is named with its line at start (Django's system check)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lib.crawl import platforms


def test_the_shipped_registry_covers_the_six_platforms(settings):
    shipped = platforms.load(settings.PLATFORM_REGISTRY_PATH)
    assert {p.name_zh for p in shipped} == {"百家号", "微信公众号", "今日头条", "微博", "知乎",
                                            "起点中文网"}
    assert platforms.platform_of(["baijiahao.baidu.com"], shipped).key == "baijiahao"
    assert platforms.platform_of(["www.zhihu.com"], shipped).name("en") == "Zhihu"
    assert platforms.platform_of(["baidu.com", "news.example"], shipped) is None
    assert "localhost" not in {d for p in shipped for d in p.domains}  # the demo entry is not read
    demo = platforms.load(settings.PLATFORM_REGISTRY_PATH, with_demo=True)
    assert platforms.platform_of(["localhost"], demo).key == "demo_platform"


@pytest.mark.parametrize("text, line, words", [
    ('[[platform]]\nkey = "a"\nname_zh = "甲"\n\n[[platform]]\nkey = ', 6, "Invalid value"),
    ("# header\n\n[[platform]]\nkey = \"a\"\n", 3, "'name_zh' must be a non-empty string"),
    ("title = 1\n", 1, "no [[platform]] table"),
])
def test_an_error_names_its_line(text, line, words):
    with pytest.raises(platforms.RegistryError) as raised:
        platforms.parse(text, "mine.toml")
    assert str(raised.value).startswith(f"mine.toml, line {line}:")
    assert words in str(raised.value)


def test_the_system_check_names_the_file_and_line(settings, tmp_path):
    from crawler.platform_registry import check_registry

    good = Path(settings.PLATFORM_REGISTRY_PATH).read_text(encoding="utf-8")
    broken = tmp_path / "platforms.toml"
    broken.write_text(good.replace('complaint_url = "https://weixin110.qq.com/"',
                                   'complaint_url = "weixin110.qq.com"'), encoding="utf-8")
    settings.PLATFORM_REGISTRY_PATH = str(broken)
    [error] = check_registry()
    line = good.splitlines().index('key = "weixin_mp"')  # its [[platform]] header: the line before
    assert error.id == "crawler.E010"
    assert f"{broken}, line {line}: 'complaint_url' must be an http(s) URL" in error.msg
