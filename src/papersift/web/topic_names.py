"""Chinese names of the corpus's area · subarea labels, for the zh page.

The topic taxonomy (the conference's primary areas and subareas: 8 areas and 77 subareas
in the shared corpus) is English. These names were written for papersift by hand (translated
by the engineer who added this table, from the usual Chinese ML terms; not copied from any
glossary or benchmark), one per English label; a label not listed shows in English. The page
shows "中文名" with the English label as its title (hover), so nothing is lost in translation.
"""

from __future__ import annotations

ZH_TOPIC_NAMES: dict[str, str] = {
    # areas
    "Applications": "应用",
    "Deep Learning": "深度学习",
    "Miscellaneous Aspects of Machine Learning": "机器学习的其他方面",
    "Optimization": "优化",
    "Probabilistic Methods": "概率方法",
    "Reinforcement Learning": "强化学习",
    "Social Aspects": "社会影响",
    "Theory": "理论",
    # subareas (one label may sit under several areas: "Everything Else", "Deep Learning")
    "Chemistry and Drug Discovery": "化学与药物发现",
    "Computer Vision": "计算机视觉",
    "Everything Else": "其他",
    "Genetics, Cell Biology, etc": "遗传学、细胞生物学等",
    "Health": "医疗健康",
    "Language, Speech and Dialog": "语言、语音与对话",
    "Neuroscience, Cognitive Science": "神经科学、认知科学",
    "Physics": "物理",
    "Robotics": "机器人",
    "Time Series": "时间序列",
    "Algorithms": "算法",
    "Attention Mechanisms": "注意力机制",
    "Generative Models and Autoencoders": "生成模型与自编码器",
    "Graph Neural Networks": "图神经网络",
    "Large Language Models": "大语言模型",
    "Other Representation Learning": "其他表示学习",
    "Robustness": "鲁棒性",
    "Self-Supervised Learning": "自监督学习",
    "Sequential Models, Time series": "序列模型、时间序列",
    "Causality": "因果性",
    "General Machine Learning Techniques": "通用机器学习技术",
    "Kernel methods": "核方法",
    "Online Learning, Active Learning and Bandits": "在线学习、主动学习与多臂老虎机",
    "Representation Learning": "表示学习",
    "Scalable Algorithms": "可扩展算法",
    "Sequential, Network, and Time Series Modeling": "序列、网络与时间序列建模",
    "Supervised Learning": "监督学习",
    "Transfer, Multitask and Meta-learning": "迁移学习、多任务学习与元学习",
    "Unsupervised and Semi-supervised Learning": "无监督与半监督学习",
    "Bilevel optimization": "双层优化",
    "Convex": "凸优化",
    "Discrete and Combinatorial Optimization": "离散与组合优化",
    "First-order": "一阶方法",
    "Global Optimization": "全局优化",
    "Large Scale, Parallel and Distributed": "大规模、并行与分布式",
    "Learning for Optimization": "学习优化",
    "Non-Convex": "非凸优化",
    "Optimization and Learning under Uncertainty": "不确定性下的优化与学习",
    "Sampling and Optimization": "采样与优化",
    "Stochastic": "随机优化",
    "Zero-order and Black-box Optimization": "零阶与黑盒优化",
    "Bayesian Models and Methods": "贝叶斯模型与方法",
    "Gaussian Processes": "高斯过程",
    "Graphical Models": "图模型",
    "Monte Carlo and Sampling Methods": "蒙特卡洛与采样方法",
    "Structure Learning": "结构学习",
    "Variational Inference": "变分推断",
    "Batch/Offline": "批量/离线强化学习",
    "Deep RL": "深度强化学习",
    "Function Approximation": "函数逼近",
    "Inverse": "逆强化学习",
    "Multi-agent": "多智能体",
    "Online": "在线强化学习",
    "Planning": "规划",
    "Policy Search": "策略搜索",
    "Accountability, Transparency and Interpretability": "问责、透明与可解释性",
    "Fairness, Equity, Justice and Safety": "公平、平等、正义与安全",
    "Privacy-preserving Statistics and Machine Learning": "隐私保护的统计与机器学习",
    "Trustworthy Machine Learning": "可信机器学习",
    "Active Learning and Interactive Learning": "主动学习与交互式学习",
    "Domain Adaptation and Transfer Learning": "领域自适应与迁移学习",
    "Game Theory": "博弈论",
    "Learning Theory": "学习理论",
    "Online Learning and Bandits": "在线学习与多臂老虎机",
    "Reinforcement Learning and Planning": "强化学习与规划",
}


def topic_name(label: str | None, lang: str) -> str | None:
    """An area or subarea label as the page shows it in `lang` (English where not listed)."""
    if label is None or lang != "zh":
        return label
    return ZH_TOPIC_NAMES.get(label, label)
