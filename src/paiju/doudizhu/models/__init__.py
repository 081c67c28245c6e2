"""Shipped Dou Dizhu policy checkpoints (package data, read with importlib.resources).

Each ``ddz-policy-<name>.pt`` sits next to ``ddz-policy-<name>.config.json`` (the exact training
command and configuration) and ``ddz-policy-<name>.metrics.json`` (its training and arena figures).
"""
