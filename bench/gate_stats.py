"""The statistics the gate's timed rules use: medians and a one-sided Mann-Whitney U test, exact
for the small samples a gate takes.

    p_value = mann_whitney_greater(now, base)  # small: `now` is slower than `base`
"""

import math


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def _midranks(values):
    """Ranks 1..n of values, ties sharing their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for k in range(start, end + 1):
            ranks[order[k]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def _exact_upper_tail(u, m, n):
    """P(U >= u) for the Mann-Whitney U of samples of sizes m and n without ties."""
    # ways[k] = number of arrangements whose U equals k, built one sample at a time.
    ways = {(0, j): [1] for j in range(n + 1)}
    for i in range(1, m + 1):
        ways[(i, 0)] = [1]
        for j in range(1, n + 1):
            # The largest value comes from x (it beats all j y's) or from y (it adds nothing).
            from_x = [0] * j + ways[(i - 1, j)]
            from_y = ways[(i, j - 1)]
            size = max(len(from_x), len(from_y))
            ways[(i, j)] = [(from_x[k] if k < len(from_x) else 0) +
                            (from_y[k] if k < len(from_y) else 0) for k in range(size)]
    counts = ways[(m, n)]
    total = sum(counts)
    return sum(counts[math.ceil(u):]) / total


def mann_whitney_greater(xs, ys):
    """One-sided p-value of the hypothesis that xs tend to be greater than ys.

    Exact for small samples without ties; otherwise the normal approximation with tie and
    continuity corrections.
    """
    m, n = len(xs), len(ys)
    if m == 0 or n == 0:
        return 1.0
    ranks = _midranks(list(xs) + list(ys))
    u = sum(ranks[:m]) - m * (m + 1) / 2
    if len(set(xs) | set(ys)) == m + n and m * n <= 2500:
        return _exact_upper_tail(u, m, n)
    total = m + n
    tie_sizes = {}
    for value in list(xs) + list(ys):
        tie_sizes[value] = tie_sizes.get(value, 0) + 1
    tie_term = sum(t ** 3 - t for t in tie_sizes.values()) / (total * (total - 1))
    variance = m * n / 12 * ((total + 1) - tie_term)
    if variance <= 0:
        return 1.0
    z = (u - m * n / 2 - 0.5) / math.sqrt(variance)
    return 0.5 * math.erfc(z / math.sqrt(2))
