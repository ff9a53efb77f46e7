"""Texts for fitting and checking the token estimate (written for this project).

``CALIBRATION`` is what the weights in ``lcel_agent/memory/_estimate.py`` were fitted on
(``python benchmarks/memory_scaling.py --fit``); ``HELD_OUT`` is never used for
fitting and is what the tests and docs/memory.md report the error on. The
categories are the kinds of text an agent's memory holds: Chinese and English
prose, the two mixed, JSON actions, and tool results.
"""

from __future__ import annotations

CALIBRATION: dict[str, list[str]] = {
    "zh": [
        "今天早上出门的时候天空还是灰蒙蒙的，到了中午却突然放晴，阳光照在湖面上，像撒了一层碎金。",
        "我们团队最近在做一个智能助手的项目，核心问题是如何让模型在多轮对话里不丢失上下文，同时又不让提示词无限膨胀。",
        "北京的秋天很短，往往一场大风过后，树叶就落了一地，街上的行人纷纷换上了厚外套。",
        "如果工具调用失败，代理应该先判断错误的类型：是网络超时、参数错误，还是服务本身不可用，然后再决定是重试、换一个工具，还是直接结束。",
        "这家小店开了二十多年，老板每天凌晨四点起床和面，做出来的包子皮薄馅大，附近的居民都喜欢来这里吃早饭。",
        "记忆窗口的大小需要权衡：太小了模型会忘记用户最初的问题，太大了每次调用都要花很多钱。",
        "请帮我总结一下这篇文章的主要观点，并指出作者在论证过程中有哪些不够严谨的地方。",
        "上海明天有中到大雨，气温在十八到二十三度之间，出门记得带伞，注意交通安全。",
    ],
    "en": [
        "The agent loop calls the model, parses the reply into an action, runs the tool and feeds the result back.",
        "When the memory window grows past its budget, the oldest turn is dropped first, but the system prompt stays.",
        "A good error message tells the user what happened, why it happened, and what they can do about it next.",
        "Rate limits are a fact of life with hosted models, so every client needs a retry policy with exponential backoff.",
        "She walked along the quiet river at dusk, watching the lights of the old town flicker on one by one.",
        "Tokenizers split text into pieces that are often whole words in English but single characters in Chinese.",
        "Please summarize the following report in three bullet points and highlight any numbers that look suspicious.",
        "The weather in London tomorrow will be cloudy with occasional showers and a high of fourteen degrees.",
        "Internationalization and containerization are notoriously unpronounceable, incomprehensible words.",
        "Step 1: read the config.\nStep 2: validate every field.\nStep 3: start the workers and wait for them.",
    ],
    "mixed": [
        "请用 LangChain 的 Runnable 接口实现一个 retry 机制，max_attempts 设为 3。",
        "gpt-4o-mini 的上下文窗口是 128k tokens，但我们的 memory 只保留 800 tokens。",
        "调用 get_weather 工具时 city 参数必须是中文，例如 '北京'，不要传 Beijing。",
        "这个 bug 出现在 parse_action 阶段：模型返回了 ```json 代码块，而 json.loads 直接报错了。",
        "我在 Python 3.11 下用 asyncio.gather 并发调用两个 tools，总耗时从 8 秒降到了 3 秒。",
        "The user asked: 上海今天会下雨吗？ and the agent replied with a weather lookup.",
        "Set OPENAI_BASE_URL 指向兼容接口，例如 DeepSeek 或者 通义千问 的 endpoint。",
        "ERROR: 高德API返回错误 - INVALID_USER_KEY，请检查 key 是否正确。",
    ],
    "json": [
        '{"action": "get_weather", "action_input": "北京"}',
        '{"action": "search_baidu", "action_input": "台风最新路径"}',
        '{"action": "final", "action_input": "北京今天晴，气温25℃；上海多云，气温28℃。"}',
        '[{"action": "get_weather", "action_input": "广州"}, {"action": "get_weather", "action_input": "深圳"}]',
        '{"action": "search_baidu", "action_input": {"query": "LangChain LCEL tutorial", "top_k": 3}}',
        '{"action": "final", "action_input": "The report has three findings: costs rose 12%, churn fell, and NPS held at 41."}',
        '{"name": "get_weather", "arguments": {"city": "杭州"}, "id": "call_7f3a9c21"}',
        '{"status": "1", "count": "1", "info": "OK", "infocode": "10000"}',
    ],
    "tool": [
        "北京天气：晴，温度25℃，湿度31%",
        "上海天气：多云，温度28℃，湿度67%",
        '["台风“摩羯”最新路径：预计明天登陆海南", "中央气象台发布台风橙色预警", "台风路径实时发布系统"]',
        "工具get_weather返回：成都天气：小雨，温度19℃，湿度88%",
        '{"lives": [{"province": "广东", "city": "广州市", "weather": "雷阵雨", "temperature": "31", "humidity": "79"}]}',
        "Search results: 1. LangChain Expression Language (LCEL) - docs; 2. How to write a custom Runnable; 3. Streaming guide",
        "ERROR: 请求失败 - HTTPSConnectionPool(host='restapi.amap.com', port=443): Read timed out. (read timeout=5)",
        "工具返回错误：ERROR: 百度搜索超时或失败 - Connection reset by peer，请换一种方式或换一个工具",
        "Top results: https://python.langchain.com/docs/concepts/lcel/ and https://github.com/langchain-ai/langchain/issues/13476",
        "request_id=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 trace=c1a5e2d0-44f1-4b1e-9c55-7e2b1f0a9d3c",
        "Traceback (most recent call last):\n  File \"agent_core.py\", line 57, in run\n    result = tools[action].invoke(action_input)\nKeyError: 'get_wether'",
    ],
}

HELD_OUT: dict[str, list[str]] = {
    "zh": [
        "周末我们去了郊外的一个小村庄，那里的空气很清新，村民们热情地邀请我们喝茶、吃刚摘下来的桃子。",
        "在设计错误处理策略时，最重要的是区分哪些错误可以通过重试解决，哪些错误需要立刻停止并告诉用户原因。",
        "杭州今天阴转小雨，西湖边游客不多，湖面上起了一层薄雾，远处的山若隐若现。",
        "他把写了一半的报告保存好，关掉电脑，决定明天早上再把最后一部分的数据核对一遍。",
    ],
    "en": [
        "The dispatcher looks up the tool by name, validates the input against its schema, and enforces a timeout.",
        "After three failed attempts the circuit breaker opens and the run stops with a clear reason instead of looping.",
        "Our support team answered more than two thousand tickets last month, most of them about billing changes.",
        "A sliding window keeps recent turns and pins the question, so the model never forgets what it was asked.",
    ],
    "mixed": [
        "把 max_loops 设成 5 之后，agent 在第 4 步就给出了 final 答案，总共消耗了 1,200 tokens。",
        "用 tiktoken 的 o200k_base 编码统计中文时，大约每个汉字对应一个 token。",
        "这次 deploy 失败是因为 Docker image 太大，CI 的 runner 磁盘空间不足。",
        "The tool search_baidu returned 三条结果, and the model picked the second one as its source.",
    ],
    "json": [
        '{"action": "get_weather", "action_input": "上海"}',
        '{"action": "search_baidu", "action_input": "2024年诺贝尔物理学奖得主"}',
        '{"action": "final", "action_input": "明天广州有雷阵雨，最高气温32℃，建议携带雨具。"}',
        '[{"action": "get_weather", "action_input": "南京"}, {"action": "search_baidu", "action_input": "南京 博物院 开放时间"}]',
        '{"action": "lookup_order", "action_input": {"order_id": "A-20931", "include_items": true}}',
    ],
    "tool": [
        "杭州天气：阴，温度21℃，湿度76%",
        '["2024年诺贝尔物理学奖授予约翰·霍普菲尔德和杰弗里·辛顿", "诺奖官网公告", "获奖理由解读"]',
        "ERROR: 工具 'get_wether' 不存在，请从 ['get_weather', 'search_baidu'] 中选择",
        "See https://docs.python.org/3/library/sqlite3.html#sqlite3.connect for the timeout parameter (default 5.0).",
        '{"order_id": "A-20931", "status": "shipped", "items": [{"sku": "KB-104", "qty": 2}], "eta": "2024-10-12"}',
    ],
}
