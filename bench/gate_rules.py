"""The gate's rules: what bench/curated.txt says to gate, parsed and checked line by line.

    rules = parse_curated(open("bench/curated.txt").read())
    short_ratios = selected(rules, "short", RatioRule)
"""

import dataclasses
import re
import shlex

BINARIES = ("cpu_bench", "store_bench")


class GateError(Exception):
    """A problem with the gate's inputs (not a regression)."""


@dataclasses.dataclass
class BenchRule:
    binary: str
    pattern: str
    max_slowdown: float
    modes: tuple
    line: int


@dataclasses.dataclass
class InstructionRule:
    binary: str
    pattern: str
    function: str  # its name as callgrind prints it, up to the parameter list
    max_slowdown: float
    modes: tuple
    line: int

    @property
    def benchmark(self):
        """The benchmark's name, as the baseline keeps its count."""
        return self.pattern.strip("^$")


@dataclasses.dataclass
class RatioRule:
    binary: str
    numerator: str
    denominator: str
    max_ratio: float
    modes: tuple
    control: tuple  # extra benchmark flags under which the rule must fail
    line: int


def _anchored(pattern, line_number):
    if not (pattern.startswith("^") and pattern.endswith("$")):
        raise GateError(f"curated.txt:{line_number}: benchmark name {pattern!r} must be "
                        "anchored (^...$)")
    try:
        re.compile(pattern)
    except re.error as error:
        raise GateError(f"curated.txt:{line_number}: bad pattern {pattern!r}: {error}")
    return pattern


def _options(words, line_number, allowed):
    options = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep or key not in allowed:
            raise GateError(f"curated.txt:{line_number}: unexpected {word!r} "
                            f"(options: {', '.join(sorted(allowed))})")
        options[key] = value
    return options


def _modes(options, line_number):
    modes = tuple(options.get("modes", "full").split(","))
    for mode in modes:
        if mode not in ("full", "short"):
            raise GateError(f"curated.txt:{line_number}: unknown mode {mode!r}")
    return modes


def _number(options, key, line_number):
    try:
        value = float(options[key])
    except (KeyError, ValueError):
        raise GateError(f"curated.txt:{line_number}: needs {key}=<number>")
    if value <= 0:
        raise GateError(f"curated.txt:{line_number}: {key} must be positive")
    return value


def _binary(word, line_number):
    if word not in BINARIES:
        raise GateError(f"curated.txt:{line_number}: unknown binary {word!r} "
                        f"(one of {', '.join(BINARIES)})")
    return word


def parse_curated(text):
    """Rules from curated.txt's text. Raises GateError naming the line of any mistake."""
    rules = []
    for number, raw in enumerate(text.splitlines(), start=1):
        words = shlex.split(raw.split("#", 1)[0])
        if not words:
            continue
        kind = words[0]
        if kind == "bench" and len(words) >= 3:
            options = _options(words[3:], number, {"max_slowdown", "modes"})
            rules.append(BenchRule(_binary(words[1], number), _anchored(words[2], number),
                                   _number(options, "max_slowdown", number),
                                   _modes(options, number), number))
        elif kind == "instructions" and len(words) >= 4:
            options = _options(words[4:], number, {"max_slowdown", "modes"})
            rules.append(InstructionRule(_binary(words[1], number), _anchored(words[2], number),
                                         words[3], _number(options, "max_slowdown", number),
                                         _modes(options, number), number))
        elif kind == "ratio" and len(words) >= 5 and words[3] == "/":
            options = _options(words[5:], number, {"max", "modes", "control"})
            control = tuple(shlex.split(options["control"])) if "control" in options else ()
            rules.append(RatioRule(_binary(words[1], number), _anchored(words[2], number),
                                   _anchored(words[4], number), _number(options, "max", number),
                                   _modes(options, number), control, number))
        else:
            raise GateError(f"curated.txt:{number}: cannot read {raw.strip()!r}; expected "
                            "'bench BINARY ^NAME$ max_slowdown=X [modes=...]', "
                            "'instructions BINARY ^NAME$ FUNCTION max_slowdown=X [modes=...]' or "
                            "'ratio BINARY ^NAME$ / ^NAME$ max=X [modes=...] [control=...]'")
    return rules



def selected(rules, mode, kind):
    return [r for r in rules if isinstance(r, kind) and mode in r.modes]


def patterns_by_binary(rules):
    patterns = {}
    for rule in rules:
        names = [rule.pattern] if isinstance(rule, BenchRule) else [rule.numerator,
                                                                     rule.denominator]
        patterns.setdefault(rule.binary, []).extend(names)
    return patterns
