"""Squared distances between points, segments and triangles (numba kernels).

Exact up to round-off (a few ulps of the coordinates): where a caller needs a bound, it
widens them by far more than that. ipctk's distances classify the closest features the same
way and agree with these to ~1e-15 (engine.ipc.face_tree, engine.ipc.near_pairs).
"""

from __future__ import annotations

from numba import njit

# The distances below take points as scalars (x, y, z each): numba compiles such kernels in
# a fraction of the time tuple or array arguments take, and they allocate nothing.


@njit(cache=True)
def point_segment_d2(
    px: float,
    py: float,
    pz: float,
    ax: float,
    ay: float,
    az: float,
    bx: float,
    by: float,
    bz: float,
) -> float:
    """Squared distance from p to segment ab."""
    ux, uy, uz = bx - ax, by - ay, bz - az
    wx, wy, wz = px - ax, py - ay, pz - az
    length2 = ux * ux + uy * uy + uz * uz
    t = 0.0
    if length2 > 0.0:
        t = min(max((wx * ux + wy * uy + wz * uz) / length2, 0.0), 1.0)
    dx, dy, dz = wx - t * ux, wy - t * uy, wz - t * uz
    return dx * dx + dy * dy + dz * dz


@njit(cache=True)
def point_triangle_d2(
    px: float, py: float, pz: float,
    ax: float, ay: float, az: float,
    bx: float, by: float, bz: float,
    cx: float, cy: float, cz: float,
) -> float:  # fmt: skip
    """Squared distance from p to triangle abc (Ericson, Real-Time Collision Detection, 5.1.5:
    the Voronoi region of p's closest point)."""
    abx, aby, abz = bx - ax, by - ay, bz - az
    acx, acy, acz = cx - ax, cy - ay, cz - az
    apx, apy, apz = px - ax, py - ay, pz - az
    d1 = abx * apx + aby * apy + abz * apz
    d2 = acx * apx + acy * apy + acz * apz
    if d1 <= 0.0 and d2 <= 0.0:
        return apx * apx + apy * apy + apz * apz  # vertex a
    bpx, bpy, bpz = px - bx, py - by, pz - bz
    d3 = abx * bpx + aby * bpy + abz * bpz
    d4 = acx * bpx + acy * bpy + acz * bpz
    if d3 >= 0.0 and d4 <= d3:
        return bpx * bpx + bpy * bpy + bpz * bpz  # vertex b
    cpx, cpy, cpz = px - cx, py - cy, pz - cz
    d5 = abx * cpx + aby * cpy + abz * cpz
    d6 = acx * cpx + acy * cpy + acz * cpz
    if d6 >= 0.0 and d5 <= d6:
        return cpx * cpx + cpy * cpy + cpz * cpz  # vertex c
    vc = d1 * d4 - d3 * d2
    vb = d5 * d2 - d1 * d6
    va = d3 * d6 - d5 * d4
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        return point_segment_d2(px, py, pz, ax, ay, az, bx, by, bz)  # edge ab
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        return point_segment_d2(px, py, pz, ax, ay, az, cx, cy, cz)  # edge ac
    if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
        return point_segment_d2(px, py, pz, bx, by, bz, cx, cy, cz)  # edge bc
    denom = va + vb + vc
    if not denom > 0.0:  # a degenerate triangle: its edges hold the closest point
        return min(
            point_segment_d2(px, py, pz, ax, ay, az, bx, by, bz),
            point_segment_d2(px, py, pz, bx, by, bz, cx, cy, cz),
            point_segment_d2(px, py, pz, cx, cy, cz, ax, ay, az),
        )
    v, w = vb / denom, vc / denom
    dx = apx - v * abx - w * acx
    dy = apy - v * aby - w * acy
    dz = apz - v * abz - w * acz
    return dx * dx + dy * dy + dz * dz


@njit(cache=True)
def segment_segment_d2(
    ax: float, ay: float, az: float,
    bx: float, by: float, bz: float,
    cx: float, cy: float, cz: float,
    dx: float, dy: float, dz: float,
) -> float:  # fmt: skip
    """Squared distance between segments ab and cd: the smallest of each end point's distance
    to the other segment, and of the interior closest points where both lie inside (Ericson
    5.1.9); near-parallel segments so lose nothing to round-off."""
    best = min(
        point_segment_d2(ax, ay, az, cx, cy, cz, dx, dy, dz),
        point_segment_d2(bx, by, bz, cx, cy, cz, dx, dy, dz),
        point_segment_d2(cx, cy, cz, ax, ay, az, bx, by, bz),
        point_segment_d2(dx, dy, dz, ax, ay, az, bx, by, bz),
    )
    ux, uy, uz = bx - ax, by - ay, bz - az
    vx, vy, vz = dx - cx, dy - cy, dz - cz
    rx, ry, rz = ax - cx, ay - cy, az - cz
    a = ux * ux + uy * uy + uz * uz
    e = vx * vx + vy * vy + vz * vz
    b = ux * vx + uy * vy + uz * vz
    denom = a * e - b * b
    if not (a > 0.0 and e > 0.0 and denom > 1e-12 * a * e):  # a point, or parallel
        return best
    c = ux * rx + uy * ry + uz * rz
    f = vx * rx + vy * ry + vz * rz
    s = (b * f - c * e) / denom
    t = (a * f - b * c) / denom
    if not (0.0 < s < 1.0 and 0.0 < t < 1.0):
        return best  # an end point is closest
    wx = rx + s * ux - t * vx
    wy = ry + s * uy - t * vy
    wz = rz + s * uz - t * vz
    return min(best, wx * wx + wy * wy + wz * wz)
