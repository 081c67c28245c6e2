"""Deal selection for competitive Dou Dizhu tournaments: DIH and test cases (``docs/dih.md``).

``dih`` computes the distinction of initial hand exactly in polynomial time,
``reference`` keeps the paper's exponential nested sum, ``distributions`` holds score laws
and their Parquet tables, ``selection`` picks a tournament's deals from a pool.
"""

from paiju.tournament.dih import dih, dih_of_rounds, dih_of_total, unique_awards_of_total
from paiju.tournament.distributions import ScoreDistribution, TotalDistribution, total_distribution
from paiju.tournament.selection import DealPool, Selection, select_joint, select_paper

__all__ = [
    "DealPool",
    "ScoreDistribution",
    "Selection",
    "TotalDistribution",
    "dih",
    "dih_of_rounds",
    "dih_of_total",
    "select_joint",
    "select_paper",
    "total_distribution",
    "unique_awards_of_total",
]
