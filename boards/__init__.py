"""FPGA boards: open-toolchain bitstreams, the on-board traffic demo, router synthesis (docs/boards.md).

``toolchain`` (YoWASP/system tools for Amaranth), ``traffic`` (LFSR generators and checkers), ``uart``,
``demo`` (the demo system and top), ``boards`` (board table, size estimate), ``flow`` (build, program),
``synth`` (one router through yosys + nextpnr), ``sim_traffic`` (the demo system under Verilator).
"""
