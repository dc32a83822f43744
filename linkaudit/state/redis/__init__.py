"""The audit's state in Redis: one audit across many workers and machines
(``--redis URL --audit NAME``).  See state.py; its keys, and the Lua
scripts that read and write them: scripts.py (a worker's and an audit's
life: lifecycle.py).
"""

from linkaudit.state.redis.state import RedisState

__all__ = ["RedisState"]
