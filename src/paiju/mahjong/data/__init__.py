"""Data files of the mahjong rules: the published tai tables (``tai_*.json``) that
``MahjongConfig(tai_table=...)`` names (``docs/mahjong-rules.md`` T1, presets)."""
