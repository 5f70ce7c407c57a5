"""Networks: fights, pending challenges and channel settings keyed by network and
channel, so several bot processes (one per IRC network, or one network's channels
split between them) share one club database; and the club's version counter.

- ``fights.network``: every existing fight is on the network ``default``; the unique
  index of one open fight per channel becomes one per (network, channel), and
  ``ix_fights_network`` answers "is there more than one network" from the index.
- ``challenges``: keyed by (network, channel_key), the rows on ``default``. The table
  is made again (a primary key changes); it holds one row per channel at most.
- ``settings``: a channel's key gains its network, ``rolls:#duels`` becoming
  ``rolls:default:#duels`` (for ``rolls``, ``timelimit`` and ``odds``); club-wide keys
  (``fairy_folk_open``, ``ignored``, moderators' passwords) stay as they are. Keys may
  be 128 characters long (a 64-character channel and a 16-character network fit).
- ``club_version``: one row, the counter every settings write and ``!mod add`` or
  ``remove`` adds one to (``storage.club``).

The downgrade is refused while any fight, challenge or channel setting is on another
network than ``default``: the schema before knew one network, and would mix their
channels (two open fights in ``#ancath`` break its unique index; a setting would pass to
the other network's channel); and while a setting's key, without its network, is
longer than the 64 characters the schema before holds (a long channel's).

Revision ID: 0007
Revises: 0006
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

DEFAULT = "default"
CHANNEL_SETTINGS = ("rolls", "timelimit", "odds")
"""The settings kept per channel (``bot.referee.Referee.channel_setting``)."""
_SETTINGS = sa.table("settings", sa.column("key", sa.String(128)))
_CHALLENGE_COLUMNS = ("channel", "challenger", "challenger_account", "target",
                      "target_account", "kind", "created_at")


def _challenges(networked: bool) -> None:
    """The ``challenges`` table, keyed by (network, channel_key) when ``networked``."""
    columns = [sa.Column("channel_key", sa.String(64), primary_key=True),
               sa.Column("channel", sa.String(64), nullable=False),
               sa.Column("challenger", sa.String(24), nullable=False),
               sa.Column("challenger_account", sa.String(120), nullable=False),
               sa.Column("target", sa.String(24), nullable=False),
               sa.Column("target_account", sa.String(120), nullable=False),
               sa.Column("kind", sa.String(16), nullable=False),
               sa.Column("created_at", sa.String(32), nullable=False)]
    if networked:
        columns.insert(0, sa.Column("network", sa.String(16), primary_key=True))
    op.create_table("challenges", *columns)


def _remake_challenges(networked: bool) -> None:
    """Make ``challenges`` again with or without its network, its rows kept."""
    names = ("channel_key", *_CHALLENGE_COLUMNS)
    rows = [dict(zip(names, row, strict=True)) for row in op.get_bind().execute(
        sa.text(f"SELECT {', '.join(names)} FROM challenges"))]
    op.drop_table("challenges")
    _challenges(networked)
    if rows:
        table = sa.table("challenges", *(sa.column(name) for name in
                                         ("network", *names) if networked or name != "network"))
        op.bulk_insert(table, [{**row, "network": DEFAULT} if networked else row
                               for row in rows])


def _rekey(renamed: dict[str, str]) -> None:
    for old, new in renamed.items():
        op.execute(_SETTINGS.update().where(_SETTINGS.c.key == old).values(key=new))


def _setting_keys() -> list[str]:
    return list(op.get_bind().execute(sa.select(_SETTINGS.c.key)).scalars())


def upgrade() -> None:
    with op.batch_alter_table("fights") as batch:
        batch.add_column(sa.Column("network", sa.String(16), nullable=False,
                                   server_default=DEFAULT))
    with op.batch_alter_table("fights") as batch:
        batch.alter_column("network", existing_type=sa.String(16), server_default=None)
        batch.drop_index("one_open_fight_per_channel")
        batch.create_index("one_open_fight_per_channel", ["network", "channel"], unique=True,
                           sqlite_where=sa.text("active"), postgresql_where=sa.text("active"))
        batch.create_index("ix_fights_network", ["network"])
    _remake_challenges(networked=True)
    with op.batch_alter_table("settings") as batch:
        batch.alter_column("key", existing_type=sa.String(64), type_=sa.String(128))
    _rekey({key: f"{what}:{DEFAULT}:{channel}" for key in _setting_keys()
            for what, _, channel in [key.partition(":")]
            if what in CHANNEL_SETTINGS and channel[:1] in ("#", "&")})
    op.create_table("club_version",
                    sa.Column("id", sa.Integer(), primary_key=True),
                    sa.Column("version", sa.Integer(), nullable=False))
    op.execute(sa.text("INSERT INTO club_version (id, version) VALUES (1, 0)"))


def _other_networks() -> list[Any]:
    """What is on another network than ``default``: fights' networks, challenges'
    channels and channel settings' keys."""
    bind = op.get_bind()
    found = list(bind.execute(sa.text(
        "SELECT DISTINCT network FROM fights WHERE network <> :default "
        "UNION SELECT DISTINCT network FROM challenges WHERE network <> :default"),
        {"default": DEFAULT}).scalars())
    found += [key for key in _setting_keys()
              if key.partition(":")[0] in CHANNEL_SETTINGS
              and key.split(":", 2)[1:2] != [DEFAULT]]
    return found


def downgrade() -> None:
    others = _other_networks()
    if others:
        raise RuntimeError(
            f"the records hold other networks than {DEFAULT} ({', '.join(map(str, others))}): "
            "the schema before networks would mix their channels; not downgrading")
    keys = _setting_keys()
    renamed = {key: f"{what}:{rest.partition(':')[2]}" for key in keys
               for what, _, rest in [key.partition(":")] if what in CHANNEL_SETTINGS}
    long = sorted(new for new in (renamed.get(key, key) for key in keys) if len(new) > 64)
    if long:
        raise RuntimeError(
            f"settings keys longer than the 64 characters the schema before networks "
            f"holds ({', '.join(long)[:300]}): those channels' settings cannot be kept; "
            "not downgrading: stay on this version of the bot")
    op.drop_table("club_version")
    _rekey(renamed)
    with op.batch_alter_table("settings") as batch:
        batch.alter_column("key", existing_type=sa.String(128), type_=sa.String(64))
    _remake_challenges(networked=False)
    with op.batch_alter_table("fights") as batch:
        batch.drop_index("ix_fights_network")
        batch.drop_index("one_open_fight_per_channel")
        batch.create_index("one_open_fight_per_channel", ["channel"], unique=True,
                           sqlite_where=sa.text("active"), postgresql_where=sa.text("active"))
        batch.drop_column("network")
