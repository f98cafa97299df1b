#!/usr/bin/env bash
exec /usr/bin/python3 bench/gate_test.py -v
