"""The TOML experiment files (docs/config.md), installed with cubenoc so that ``--config examples/NAME.toml``
or ``--config NAME`` finds them from any folder (cubenoc/config.py ``config_path``)."""
