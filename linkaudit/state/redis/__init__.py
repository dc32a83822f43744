"""The audit's state in Redis: one audit across many workers and machines
(``--redis URL --audit NAME``).  See state.py."""

from linkaudit.state.redis.state import RedisState

__all__ = ["RedisState"]
