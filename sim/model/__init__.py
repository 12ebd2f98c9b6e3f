"""Cycle-accurate model of the rtl/ router microarchitecture (the golden reference)."""
