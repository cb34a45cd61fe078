"""Query phrases of a work (lib.crawl.search.phrases): clauses of 12-30 characters of the
text as written, rare bigrams first, spread over the text; names of people, boilerplate,
repeated lines and runs shared with the holder's other works left out; and, on a simulated web
of the demo works, more copies found per query than the first sentences find."""

import json

import pytest

from bench.search_discovery import demo_corpus, run
from bench.simweb import SimulatedWeb, plan_web
from lib.crawl.search import phrases
from tests.chapter import CHAPTER

NEWS = "本报北京一月一日电，首都各界群众在人民大会堂举行新年音乐会，气氛热烈，掌声经久不息。"


def test_phrases_are_clauses_of_the_text_as_written():
    rarity = phrases.Rarity.from_texts([CHAPTER, NEWS])
    chosen = phrases.choose(CHAPTER, 5, rarity)
    assert len(chosen) == 5
    for p in chosen:
        assert phrases.MIN_CHARS <= len(p.text) <= phrases.MAX_CHARS
        assert CHAPTER[p.start:p.start + len(p.text)] == p.text  # exact phrase, offsets right
    # spread: one from each fifth of the text
    fifths = {int(p.start / (len(CHAPTER) / 5)) for p in chosen}
    assert fifths == {0, 1, 2, 3, 4}


def test_rare_clauses_rank_above_common_ones():
    common = "我们今天在这里开会讨论工作的问题"
    rare = "麂獐狻猊獾狐踞崖啸月鸣涧"
    texts = [common + "。" + "今天我们在这里讨论问题。" * 3] * 20 + [rare + "。"]
    rarity = phrases.Rarity.from_texts(texts)
    assert rarity.score(rare) > rarity.score(common)
    chosen = phrases.choose(common + "。" + rare + "。", 1, rarity)
    assert [p.text for p in chosen] == [rare]


def test_names_boilerplate_repeats_and_shared_runs_are_left_out():
    text = ("孙悟空拔一根毫毛吹口仙气叫变。"  # a person's name: copies change it
            "本站转载请注明出处谢谢合作支持。"  # boilerplate
            "请访问https://example.com阅读全文。"
            "第一回灵根育孕源流出心性修持。第一回灵根育孕源流出心性修持。"  # repeated line
            "这是同一系列每本书都有的序言文字。"  # shared with the holder's other works
            "石猴登上瀑布之后发现水帘洞府。")
    rarity = phrases.Rarity.from_texts([text])
    others = ["序言：这是同一系列每本书都有的序言文字。下面是正文。"]
    chosen = [p.text for p in phrases.choose(text, 10, rarity, others)]
    assert chosen == ["石猴登上瀑布之后发现水帘洞府"]
    kept = [p.text for p in phrases.choose(text, 10, rarity, others, skip_names=False)]
    assert "孙悟空拔一根毫毛吹口仙气叫变" in kept


def test_a_long_sentence_is_cut_at_its_commas_and_nothing_for_no_budget():
    sentence = "，".join(["花果山上有一块仙石", "其石有三丈六尺五寸高", "有二丈四尺围圆",
                         "按政历二十四气"]) + "。"
    cut = [c for _, c in phrases.clauses(sentence)]
    assert all(len(c) <= phrases.MAX_CHARS for c in cut) and cut
    assert "".join(cut).replace("，", "") in sentence.replace("，", "")
    assert phrases.choose(sentence, 0, phrases.Rarity.from_texts([sentence])) == []
    assert phrases.first_sentences(sentence, 1)[0].text == cut[0]


@pytest.mark.slow
def test_distinctive_phrases_find_more_copies_per_query_than_first_sentences():
    works, fillers = demo_corpus()
    sites = plan_web(works, fillers, sites=50, verbatim=5, edited=5, paginated=5, excerpt=5)
    from fingerprint import Engine
    from fingerprint.index import MemoryIndex
    from fingerprint.store import MemoryWorkStore

    engine = Engine(MemoryIndex(), MemoryWorkStore())
    engine.add_works(works.items())
    import requests

    with SimulatedWeb(sites) as web, requests.Session() as session:
        naive = run(web, works, engine, "first_sentences", 2, session)
        chosen = run(web, works, engine, "distinctive", 2, session)
    print(json.dumps([naive, chosen]))
    assert chosen["queries"] == naive["queries"] == 2 * len(works)
    assert chosen["copies_found"] > naive["copies_found"]
    assert chosen["recall"] >= 0.9 and chosen["precision"] == 1.0
