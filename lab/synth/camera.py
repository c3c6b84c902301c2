"""The camera simulator: boards on a textured table, photographed as a Pi camera over a real table would.

World frame: the table is the plane z = 0 with x and y along it in millimetres and z pointing down into the
table, so the camera sits at negative z and a piece of height h has its top at z = -h. A board's own frame
(x right, y down, origin at its top-left corner, as in its profile) is placed on the table by a translation
of its centre and a yaw.

The picture is built in an ideal pinhole image (the boards are warped in by exact plane homographies, pieces
are drawn in 3D), then lit, bent by the lens' distortion, blurred, given sensor noise and JPEG-compressed.
Every photo's truth holds what was drawn: board corners in the distorted image, states and cell labels.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from lab.synth.art import Colour, Image
from lab.synth.scene import Piece, SyntheticBoard
from vision.camera_model import CameraModel, recorded_camera
from vision.geometry import as_points, cell_center_mm

Matrix = NDArray[np.float64]

SKIN_TONES: tuple[Colour, ...] = (
    (150, 180, 225),
    (120, 160, 210),
    (90, 130, 185),
    (60, 95, 140),
    (45, 70, 105),
)


PHONE_WH = (4032, 3024)  # a phone camera's 12 MP, as phones write their photos


@dataclass(frozen=True)
class PhotoOptions:
    """What the simulated photographer may do. ``hands`` is the chance of a hand or arm over a board."""

    size_wh: tuple[int, int] = (2304, 1296)
    max_tilt_deg: float = 45.0
    min_tilt_deg: float = 0.0
    hands: float = 0.0
    effects: bool = True
    stickers: bool = False
    jpeg_quality: tuple[int, int] = (60, 95)


@dataclass(frozen=True)
class Placement:
    """Where a board lies on the table: its centre (mm) and its yaw (radians)."""

    board: SyntheticBoard
    centre_mm: tuple[float, float]
    yaw: float

    def board_to_world(self) -> Matrix:
        """3x3 affine map from board millimetres to table millimetres (homogeneous 2D)."""
        w, h = self.board.profile.size_mm
        c, s = np.cos(self.yaw), np.sin(self.yaw)
        to_centre = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1.0]])
        rot = np.array([[c, -s, self.centre_mm[0]], [s, c, self.centre_mm[1]], [0, 0, 1.0]])
        return np.asarray(rot @ to_centre, dtype=np.float64)


@dataclass(frozen=True)
class Pose:
    """World-to-camera rotation and translation."""

    rotation: Matrix
    translation: Matrix

    def to_camera(self, pts_world: object) -> Matrix:
        p = np.asarray(pts_world, dtype=np.float64).reshape(-1, 3)
        return p @ self.rotation.T + self.translation


@dataclass
class Photo:
    """A rendered photo: the JPEG bytes as a camera would deliver them, and the truth of what is in it."""

    jpeg: bytes
    truth: dict[str, Any] = field(default_factory=dict)

    def decode(self) -> Image:
        image = cv2.imdecode(np.frombuffer(self.jpeg, np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError("the rendered JPEG does not decode")
        return np.asarray(image, dtype=np.uint8)

    def camera(self) -> CameraModel:
        """The camera (intrinsics and lens) the photo was taken with."""
        return recorded_camera(self.truth)


def random_camera(rng: np.random.Generator, size_wh: tuple[int, int]) -> CameraModel:
    """A Pi Camera Module 3, standard (66 degree) or wide (102 degree) lens, with lens-to-lens spread."""
    w, h = size_wh
    wide = bool(rng.random() < 0.5)
    hfov = np.deg2rad(rng.normal(102.0 if wide else 66.0, 1.5))
    f = (w / 2) / np.tan(hfov / 2)
    matrix = np.array(
        [[f, 0, w / 2 + rng.normal(0, w * 0.004)], [0, f, h / 2 + rng.normal(0, h * 0.004)], [0, 0, 1]]
    )
    if wide:
        k1, k2, k3 = rng.uniform(-0.3, -0.2), rng.uniform(0.04, 0.09), rng.uniform(-0.02, 0.0)
    else:
        k1, k2, k3 = rng.uniform(-0.08, 0.02), rng.uniform(-0.02, 0.04), 0.0
    dist = np.array([k1, k2, rng.normal(0, 5e-4), rng.normal(0, 5e-4), k3])
    return CameraModel(matrix, dist, size_wh)


def gap_mm(a: Matrix, b: Matrix) -> float:
    """How far apart two convex outlines (table mm) lie along the axis that parts them most (< 0: they
    overlap)."""
    best = -np.inf
    for poly in (a, b):
        for i in range(len(poly)):
            edge = poly[(i + 1) % len(poly)] - poly[i]
            normal = np.array([-edge[1], edge[0]]) / np.linalg.norm(edge)
            pa, pb = a @ normal, b @ normal
            best = max(best, pb.min() - pa.max(), pa.min() - pb.max())
    return float(best)


def place_props(
    placements: list[Placement], props: list[SyntheticBoard], rng: np.random.Generator
) -> list[Placement]:
    """Things laid beside the boards (a card, loose tiles), any way round: each 5-80 mm from the nearest
    board, none touching another. One that finds no room after many tries is left off the table."""

    def outline(p: Placement) -> Matrix:
        return _world_points(p, p.board.profile.corners_mm)[:, :2]

    laid: list[Placement] = []
    for prop in props:
        reach = float(np.hypot(*prop.profile.size_mm)) / 2
        for _ in range(200):
            anchor = placements[int(rng.integers(len(placements)))]
            far = float(np.hypot(*anchor.board.profile.size_mm)) / 2 + reach + 80
            angle = rng.uniform(-np.pi, np.pi)
            centre = np.array(anchor.centre_mm) + rng.uniform(0.3, 1.0) * far * np.array(
                [np.cos(angle), np.sin(angle)]
            )
            here = Placement(prop, (float(centre[0]), float(centre[1])), float(rng.uniform(-np.pi, np.pi)))
            to_boards = [gap_mm(outline(here), outline(p)) for p in placements]
            to_props = [gap_mm(outline(here), outline(p)) for p in laid]
            if 5 <= min(to_boards) <= 80 and min(to_props, default=np.inf) >= 5:
                laid.append(here)
                break
    return laid


def place_boards(boards: list[SyntheticBoard], rng: np.random.Generator) -> list[Placement]:
    """Lay boards out as players do: in a loose grid, all facing about the same way, none touching.

    The whole arrangement turns with the camera's roll, so boards still appear at any rotation.
    """
    placements: list[Placement] = []
    cols = int(np.ceil(np.sqrt(len(boards))))
    jitter = np.deg2rad(8.0)
    # A board turned by the jitter grows by at most sin(jitter) of its other side; the gap absorbs the rest.
    pitch = max(max(b.profile.size_mm) for b in boards) * (1 + np.sin(jitter)) + rng.uniform(15, 60)
    base_yaw = float(rng.choice([0.0, np.pi / 2, np.pi, -np.pi / 2]))
    for i, board in enumerate(boards):
        r, c = divmod(i, cols)
        centre = (c * pitch + rng.uniform(-5, 5), r * pitch + rng.uniform(-5, 5))
        yaw = base_yaw + float(rng.uniform(-jitter, jitter))
        placements.append(Placement(board, (float(centre[0]), float(centre[1])), yaw))
    return placements


def _look_at(camera_centre: Matrix, target: Matrix, roll: float) -> Pose:
    forward = target - camera_centre
    forward /= np.linalg.norm(forward)
    ref = np.array([0.0, 0.0, 1.0]) if abs(forward[2]) < 0.99 else np.array([1.0, 0.0, 0.0])
    x = np.cross(ref, forward)
    x /= np.linalg.norm(x)
    y = np.cross(forward, x)
    c, s = np.cos(roll), np.sin(roll)
    x, y = c * x + s * y, -s * x + c * y
    rotation = np.vstack([x, y, forward])
    return Pose(rotation, -rotation @ camera_centre)


def _world_points(placement: Placement, pts_mm: object, z: float = 0.0) -> Matrix:
    p = as_points(pts_mm)
    hom = np.column_stack([p, np.ones(len(p))]) @ placement.board_to_world().T
    return np.column_stack([hom[:, :2], np.full(len(p), z)])


def frame_scene(
    placements: list[Placement],
    model: CameraModel,
    rng: np.random.Generator,
    max_tilt_deg: float,
    min_tilt_deg: float = 0.0,
) -> Pose:
    """A camera pose that sees every board whole: tilt ``min_tilt_deg`` to ``max_tilt_deg``, any azimuth and
    roll."""
    corners = np.vstack([_world_points(p, p.board.profile.corners_mm) for p in placements])
    target = np.array([*corners[:, :2].mean(axis=0), 0.0])
    radius = float(np.max(np.linalg.norm(corners[:, :2] - target[:2], axis=1)))
    w, h = model.size_wh
    half_fov = np.arctan((min(w, h) / 2) / model.matrix[0, 0])
    fill = rng.uniform(0.55, 0.95)
    tilt = np.deg2rad(rng.uniform(min_tilt_deg, max_tilt_deg))
    azimuth = rng.uniform(-np.pi, np.pi)
    roll = rng.uniform(-np.pi, np.pi)
    distance = radius / (fill * np.tan(half_fov))
    for _ in range(60):
        direction = np.array([np.sin(tilt) * np.cos(azimuth), np.sin(tilt) * np.sin(azimuth), -np.cos(tilt)])
        pose = _look_at(target + distance * direction, target, roll)
        cam = pose.to_camera(corners)
        if np.all(cam[:, 2] > 0):
            px = model.project(cam)
            margin = 0.03 * min(w, h)
            if np.all(
                (px[:, 0] > margin) & (px[:, 0] < w - margin) & (px[:, 1] > margin) & (px[:, 1] < h - margin)
            ):
                return pose
        distance *= 1.08
    raise RuntimeError("could not frame the boards: the camera would have to be implausibly far away")


def _ideal_project(model: CameraModel, pose: Pose, pts_world: object) -> Matrix:
    cam = pose.to_camera(pts_world)
    img = cam @ model.matrix.T
    return img[:, :2] / img[:, 2:3]


def board_homography(model: CameraModel, pose: Pose, placement: Placement) -> Matrix:
    """Board millimetres -> ideal (undistorted) image pixels."""
    plane = model.matrix @ np.column_stack([pose.rotation[:, 0], pose.rotation[:, 1], pose.translation])
    return np.asarray(plane @ placement.board_to_world(), dtype=np.float64)


def _table(size_wh: tuple[int, int], rng: np.random.Generator) -> NDArray[np.float32]:
    w, h = size_wh
    kind = rng.integers(3)
    low = cv2.resize(rng.normal(0, 1, (h // 32 + 2, w // 32 + 2)).astype(np.float32), (w, h))
    image = np.empty((h, w, 3), np.float32)
    if kind == 0:  # wood: long grain lines across planks, gently wavering
        base = np.array(rng.choice([(60, 100, 150), (40, 70, 110), (90, 140, 190)]), np.float32)
        a = rng.uniform(0, np.pi)
        # A row and a column broadcast: the same sums as whole grids of coordinates, without building them.
        yy, xx = np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]
        v = -xx * np.sin(a) + yy * np.cos(a)
        smooth = cv2.resize(rng.normal(0, 1, (h // 128 + 2, w // 128 + 2)).astype(np.float32), (w, h))
        period = rng.uniform(10, 25)
        grain = np.sin(v / period + 2.0 * smooth) + 0.4 * np.sin(v / (period / 4.3) + 1.3 * low)
        shade = 1.0 + 0.06 * grain + 0.04 * low
    elif kind == 1:  # felt or cloth
        base = np.array(rng.choice([(60, 110, 40), (110, 70, 40), (70, 70, 70), (40, 40, 120)]), np.float32)
        fine = rng.normal(0, 0.06, (h, w)).astype(np.float32)
        shade = 1.0 + fine + 0.05 * low
    else:  # laminate
        base = np.array(rng.choice([(225, 225, 220), (200, 205, 210), (170, 180, 185)]), np.float32)
        shade = 1.0 + 0.03 * low
    # Written straight into the float32 frame (a wood grain's shade is float64): a whole frame in float64
    # is twice the memory, faulted in page by page.
    np.multiply(shade[..., None], base, out=image, casting="same_kind")
    return image


def _soft(image: NDArray[np.float32], sigma: float) -> NDArray[np.float32]:
    """A wide Gaussian blur, done at reduced resolution: wide blurs at full size cost seconds per frame."""
    factor = int(max(1, min(8, sigma // 3)))
    if factor == 1:
        return np.asarray(cv2.GaussianBlur(image, (0, 0), sigma), dtype=np.float32)
    h, w = image.shape[:2]
    small = cv2.resize(image, (max(1, w // factor), max(1, h // factor)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / factor)
    return np.asarray(cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR), dtype=np.float32)


def _over(
    colour: NDArray[np.float32],
    alpha: NDArray[np.float32],
    src: NDArray[np.float32],
    src_alpha: NDArray[np.float32],
) -> None:
    """Composite straight-alpha ``src`` over the premultiplied layers, in place."""
    a = src_alpha[..., None]
    colour *= 1 - a
    colour += src * a
    alpha *= 1 - src_alpha
    alpha += src_alpha


def _warp_board(
    colour: NDArray[np.float32],
    alpha: NDArray[np.float32],
    image: Image,
    homography: Matrix,
    cover: Image | None = None,
) -> NDArray[np.float32]:
    """The board drawn over the scene where it lies (``cover``: where its tiles are; None, all of it);
    returns that coverage."""
    w, h = colour.shape[1], colour.shape[0]
    # Replicated borders: the coverage mask alone decides how much of an edge pixel is board.
    warped = cv2.warpPerspective(
        image, homography, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    where = np.full(image.shape[:2], 255, np.uint8) if cover is None else cover
    seen = cv2.warpPerspective(where, homography, (w, h), flags=cv2.INTER_LINEAR)
    mask = np.asarray(seen, np.float32) / np.float32(255.0)
    _over(colour, alpha, warped.astype(np.float32), mask)
    return mask


def _tile_shadows(shade: NDArray[np.float32], tiles: NDArray[np.float32], rng: np.random.Generator) -> None:
    """Each tile laid on the table (``tiles``: where they are, in the scene) casts its own soft shadow."""
    h, w = shade.shape
    dx, dy = rng.normal(0, 3, 2)
    moved = cv2.warpAffine(tiles, np.array([[1.0, 0, dx], [0, 1.0, dy]]), (w, h))
    shade *= 1 - 0.3 * _soft(np.asarray(moved, np.float32), 3)


def with_stickers(board: SyntheticBoard, index: int) -> SyntheticBoard:
    """The board wearing ArUco corner stickers ``4 * index`` .. ``4 * index + 3`` (TL, TR, BR, BL)."""
    from vision.locate.stickers import STICKER_MM, marker_image

    image = board.drawing.image_bgr.copy()
    s = board.drawing.px_per_mm
    side = round(STICKER_MM * s)
    h, w = image.shape[:2]
    origins = [(0, 0), (w - side, 0), (w - side, h - side), (0, h - side)]
    for k, (x, y) in enumerate(origins):
        sticker = marker_image(4 * index + k, side)
        image[y : y + side, x : x + side] = sticker[..., None]
    drawing = replace(board.drawing, image_bgr=image)
    return SyntheticBoard(board.profile, board.pack, board.state, board.cells, drawing)


def _board_sides(
    colour: NDArray[np.float32],
    alpha: NDArray[np.float32],
    model: CameraModel,
    pose: Pose,
    placement: Placement,
    rng: np.random.Generator,
) -> None:
    """The board's cut edges: its printed top is the plane z = 0, its underside rests on the table below."""
    thickness = rng.uniform(1.5, 3.0)
    corners = placement.board.profile.corners_mm
    top = _ideal_project(model, pose, _world_points(placement, corners, 0.0))
    bottom = _ideal_project(model, pose, _world_points(placement, corners, thickness))
    h, w = alpha.shape
    mask = np.zeros((h, w), np.float32)
    for i in range(4):
        j = (i + 1) % 4
        side = np.array([top[i], top[j], bottom[j], bottom[i]])
        cv2.fillPoly(mask, [np.round(side * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
    edge = np.empty((h, w, 3), np.float32)
    edge[:] = rng.uniform(35, 95) * np.array([1.0, 1.02, 1.05], np.float32)
    _over(colour, alpha, edge, mask)


def _drop_shadow(shade: NDArray[np.float32], polygon_px: Matrix, rng: np.random.Generator) -> None:
    h, w = shade.shape[:2]
    mask = np.zeros((h, w), np.float32)
    offset = rng.normal(0, 6, 2)
    cv2.fillPoly(mask, [np.round((polygon_px + offset) * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
    mask = _soft(mask, 8)
    shade *= 1 - 0.35 * mask


# A piece's sash spans these shares of its height.
SASH = (0.35, 0.7)


def _draw_piece(
    colour: NDArray[np.float32],
    alpha: NDArray[np.float32],
    cover: NDArray[np.float32],
    model: CameraModel,
    pose: Pose,
    placement: Placement,
    piece: Piece,
) -> None:
    n = 24
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ring = np.column_stack(
        [piece.x_mm + piece.diameter_mm / 2 * np.cos(t), piece.y_mm + piece.diameter_mm / 2 * np.sin(t)]
    )
    base = _ideal_project(model, pose, _world_points(placement, ring, 0.0))
    top = _ideal_project(model, pose, _world_points(placement, ring, -piece.height_mm))
    d = piece.diameter_mm / 2
    square_mm = [
        (piece.x_mm - d, piece.y_mm - d),
        (piece.x_mm + d, piece.y_mm - d),
        (piece.x_mm + d, piece.y_mm + d),
        (piece.x_mm - d, piece.y_mm + d),
    ]
    # The top face sits on the plane z = -height: its square sprite is warped there.
    dst = _ideal_project(model, pose, _world_points(placement, square_mm, -piece.height_mm))
    # Everything is drawn inside the piece's own box: a frame-sized pass per piece would dominate the render.
    allp = np.vstack([base, top, dst])
    h, w = colour.shape[:2]
    x0, y0 = np.maximum(np.floor(allp.min(axis=0)).astype(int) - 2, 0)
    x1, y1 = np.minimum(np.ceil(allp.max(axis=0)).astype(int) + 2, [w, h])
    if x1 <= x0 or y1 <= y0:
        return
    roi_c, roi_a = colour[y0:y1, x0:x1], alpha[y0:y1, x0:x1]
    offset = np.array([x0, y0], np.float64)
    hull = cv2.convexHull(np.vstack([base, top]).astype(np.float32)).reshape(-1, 2) - offset
    body_mask = np.zeros(roi_a.shape, np.float32)
    cv2.fillPoly(body_mask, [np.round(hull * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
    body = np.empty(roi_c.shape, np.float32)
    body[:] = np.array(piece.body, np.float32) * 0.72
    _over(roi_c, roi_a, body, body_mask)
    if piece.sash is not None:
        low, high = (
            _ideal_project(model, pose, _world_points(placement, ring, -piece.height_mm * f)) for f in SASH
        )
        sash_hull = cv2.convexHull(np.vstack([low, high]).astype(np.float32)).reshape(-1, 2) - offset
        sash_mask = np.zeros(roi_a.shape, np.float32)
        cv2.fillPoly(sash_mask, [np.round(sash_hull * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
        body[:] = np.array(piece.sash, np.float32) * 0.72
        _over(roi_c, roi_a, body, sash_mask)
    size = piece.top_bgra.shape[0]
    src = np.array([(0, 0), (size, 0), (size, size), (0, size)], np.float32)
    hm = cv2.getPerspectiveTransform(src, (dst - offset).astype(np.float32))
    warped = cv2.warpPerspective(piece.top_bgra, hm, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    top_mask = warped[..., 3].astype(np.float32) / 255.0
    _over(roi_c, roi_a, warped[..., :3].astype(np.float32), top_mask)
    roi_cover = cover[y0:y1, x0:x1]
    np.maximum(roi_cover, np.maximum(body_mask, top_mask), out=roi_cover)


def _hand(
    colour: NDArray[np.float32],
    alpha: NDArray[np.float32],
    shade: NDArray[np.float32],
    target_px: Matrix,
    mm_px: float,
    rng: np.random.Generator,
) -> NDArray[np.float32]:
    """Draw an arm reaching in from outside the boards to ``target_px``; returns its coverage mask."""
    h, w = colour.shape[:2]
    tx, ty = float(target_px[0]), float(target_px[1])
    edges = [(tx, -50.0), (tx, h + 50.0), (-50.0, ty), (w + 50.0, ty)]
    start = np.array(edges[int(np.argmin([abs(ty), abs(h - ty), abs(tx), abs(w - tx)]))])
    start += rng.normal(0, 0.15 * min(w, h), 2)
    end = np.array([tx, ty])
    direction = (end - start) / max(np.linalg.norm(end - start), 1.0)
    normal = np.array([-direction[1], direction[0]])
    arm_w = 30 * mm_px  # half the forearm's width
    mask = np.zeros((h, w), np.float32)
    wrist = end - direction * 45 * mm_px
    quad = np.array(
        [
            start + normal * arm_w,
            wrist + normal * arm_w * 0.8,
            wrist - normal * arm_w * 0.8,
            start - normal * arm_w,
        ]
    )
    cv2.fillPoly(mask, [np.round(quad * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
    palm = end - direction * 15 * mm_px
    cv2.ellipse(
        mask,
        (round(palm[0]), round(palm[1])),
        (round(42 * mm_px), round(36 * mm_px)),
        float(np.degrees(np.arctan2(direction[1], direction[0]))),
        0,
        360,
        1.0,
        -1,
        cv2.LINE_AA,
    )
    for k in (-1.5, -0.5, 0.5, 1.5):
        base = palm + normal * k * 16 * mm_px + direction * 25 * mm_px
        tip = base + direction * rng.uniform(35, 55) * mm_px + normal * k * rng.uniform(2, 8) * mm_px
        cv2.line(
            mask,
            tuple(np.round(base).astype(int)),
            tuple(np.round(tip).astype(int)),
            1.0,
            max(2, round(15 * mm_px)),
            cv2.LINE_AA,
        )
    shadow = _soft(np.roll(mask, (int(20 * mm_px), int(12 * mm_px)), (0, 1)), 12 * mm_px + 1)
    colour *= (1 - 0.45 * shadow)[..., None]
    shade *= 1 - 0.45 * shadow
    skin = np.array(SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], np.float32)
    relief = _soft(mask, 10 * mm_px + 1)
    _over(colour, alpha, skin[None, None, :] * (0.75 + 0.35 * relief[..., None]), mask)
    return mask


def _light(canvas: NDArray[np.float32], rng: np.random.Generator) -> None:
    """Uneven light, colour temperature, soft shadows and glare, applied in place.

    Every one of these is smooth, so the fields are computed at 1/8 resolution and upsampled once.
    """
    h, w = canvas.shape[:2]
    f = 8
    sh, sw = h // f + 1, w // f + 1
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xn, yn = xx / sw - 0.5, yy / sh - 0.5
    gx, gy = rng.uniform(-0.5, 0.5, 2)
    cx, cy = rng.uniform(-0.4, 0.4, 2)
    vignette = rng.uniform(0.1, 0.5) * ((xn - cx) ** 2 + (yn - cy) ** 2)
    gain = rng.uniform(0.75, 1.1) + gx * xn + gy * yn - vignette
    gain = np.clip(gain, 0.35, 1.3).astype(np.float32)
    for _ in range(int(rng.integers(0, 3))):  # soft shadows of things outside the frame
        pts = (rng.uniform(0, 1, (4, 2)) * [sw, sh]).astype(np.float32)
        mask = np.zeros((sh, sw), np.float32)
        hull = np.round(cv2.convexHull(pts).reshape(-1, 2) * 16).astype(np.int32)
        cv2.fillPoly(mask, [hull], 1.0, cv2.LINE_AA, 4)
        mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(15, 60) / f)
        gain *= 1 - rng.uniform(0.15, 0.4) * mask
    glare = np.zeros((sh, sw), np.float32)
    for _ in range(int(rng.integers(0, 3))):  # glare from a lamp on a glossy board
        gx_px, gy_px = rng.uniform(0, sw), rng.uniform(0, sh)
        sigma = rng.uniform(15, 90) / f
        glare += rng.uniform(60, 180) * np.exp(-((xx - gx_px) ** 2 + (yy - gy_px) ** 2) / (2 * sigma**2))
    # Colour temperature from warm tungsten (2700 K) to cool daylight shade (7000 K), as B, G, R gains.
    warmth = rng.uniform(-1, 1)
    warm, cool = max(warmth, 0.0), max(-warmth, 0.0)
    temp = np.array([1 - 0.25 * warm, 1.0, (1 - 0.2 * cool) * (1 + 0.15 * warm)], np.float32)
    full_gain = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
    canvas *= full_gain[..., None] * temp[None, None, :]
    if glare.any():
        canvas += cv2.resize(glare, (w, h), interpolation=cv2.INTER_LINEAR)[..., None]


def _sensor(image: Image, rng: np.random.Generator) -> Image:
    out = image
    if rng.random() < 0.25:  # motion blur
        length = int(rng.integers(3, 10))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        kernel = cv2.warpAffine(kernel, rot, (length, length))
        out = cv2.filter2D(out, -1, kernel / max(float(kernel.sum()), 1e-6))
    sigma = rng.uniform(0.0, 1.6)  # defocus
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    f = out.astype(np.float32)
    read, shot = rng.uniform(1.0, 5.0), rng.uniform(0.02, 0.2)
    # Read and shot noise, sqrt(read^2 + shot * f) times a normal draw, in place: each frame-sized
    # temporary is a fresh mapping the kernel faults in (lab/train/heap.py).
    spread = f * shot
    spread += read**2
    np.sqrt(spread, out=spread)
    spread *= rng.standard_normal(f.shape, dtype=np.float32)
    f += spread
    return np.clip(f, 0, 255, out=f).astype(np.uint8)


@dataclass(frozen=True)
class Layers:
    """The scene drawn in the ideal (pinhole) image, restricted to a window around the boards.

    ``colour`` is premultiplied by ``alpha`` (what covers the table); ``shade`` darkens the table beneath
    (drop shadows). ``origin`` is the window's top-left corner in ideal pixels. ``pieces``: where a standing
    piece covers what lies beneath it.
    """

    colour: NDArray[np.float32]
    alpha: NDArray[np.float32]
    shade: NDArray[np.float32]
    origin: tuple[int, int]
    pieces: NDArray[np.float32]


def _window(
    model: CameraModel, pose: Pose, placements: list[Placement], whole_frame: bool
) -> tuple[int, int, int, int]:
    pts = []
    if whole_frame:
        # An arm reaches in from the frame's edge, so the window must hold the whole (undistorted) frame.
        w, h = model.size_wh
        edge = np.linspace(0, 1, 32)
        border = np.vstack(
            [
                np.column_stack([edge * w, np.zeros(32)]),
                np.column_stack([edge * w, np.full(32, h)]),
                np.column_stack([np.zeros(32), edge * h]),
                np.column_stack([np.full(32, w), edge * h]),
            ]
        )
        ideal = model.undistort_px(border)
        pts.append(np.clip(ideal, [-0.5 * w, -0.5 * h], [1.5 * w, 1.5 * h]))
    for p in placements:
        corners = p.board.profile.corners_mm
        pts.append(_ideal_project(model, pose, _world_points(p, corners, 0.0)))
        tallest = max((pc.height_mm for pc in p.board.drawing.pieces), default=0.0)
        pts.append(_ideal_project(model, pose, _world_points(p, corners, -tallest - 5.0)))
    allp = np.vstack(pts)
    # Room around the boards for drop shadows and anti-aliasing.
    x0, y0 = np.floor(allp.min(axis=0)).astype(int) - 40
    x1, y1 = np.ceil(allp.max(axis=0)).astype(int) + 40
    return int(x0), int(y0), int(x1), int(y1)


def _draw_layers(
    model: CameraModel, pose: Pose, placements: list[Placement], rng: np.random.Generator, hands: float
) -> tuple[Layers, NDArray[np.float32]]:
    hand = hands > 0 and rng.random() < hands
    x0, y0, x1, y1 = _window(model, pose, placements, hand)
    shift = np.array([[1.0, 0, -x0], [0, 1.0, -y0], [0, 0, 1.0]])
    view = CameraModel(shift @ model.matrix, model.dist, (x1 - x0, y1 - y0))
    h, w = y1 - y0, x1 - x0
    colour = np.zeros((h, w, 3), np.float32)
    alpha = np.zeros((h, w), np.float32)
    shade = np.ones((h, w), np.float32)
    for placement in placements:
        drawing = placement.board.drawing
        px_to_mm = np.diag([1 / drawing.px_per_mm, 1 / drawing.px_per_mm, 1.0])
        homography = board_homography(view, pose, placement) @ px_to_mm
        if drawing.cover is None:
            outline = _ideal_project(view, pose, _world_points(placement, placement.board.profile.corners_mm))
            _drop_shadow(shade, outline, rng)
            _board_sides(colour, alpha, view, pose, placement, rng)
            _warp_board(colour, alpha, drawing.image_bgr, homography)
        else:
            # Tiles laid on the table: it shows between them and where none lies.
            _tile_shadows(
                shade, _warp_board(colour, alpha, drawing.image_bgr, homography, drawing.cover), rng
            )
    pieces = [(p, piece) for p in placements for piece in p.board.drawing.pieces]
    # Far pieces first, so near ones overlap them as they would.
    depth = [float(pose.to_camera(_world_points(p, [(pc.x_mm, pc.y_mm)]))[0, 2]) for p, pc in pieces]
    pieces_mask = np.zeros((h, w), np.float32)
    for i in np.argsort(depth)[::-1]:
        placement, piece = pieces[i]
        _draw_piece(colour, alpha, pieces_mask, view, pose, placement, piece)
    hand_mask = np.zeros((h, w), np.float32)
    if hand:
        placement = placements[int(rng.integers(len(placements)))]
        target_mm = rng.uniform(0.2, 0.8, 2) * placement.board.profile.size_mm
        aside = target_mm + np.array([10.0, 0.0])
        pts = _ideal_project(view, pose, _world_points(placement, [target_mm, aside]))
        mm_px = float(np.linalg.norm(pts[1] - pts[0])) / 10
        hand_mask = _hand(colour, alpha, shade, pts[0], mm_px, rng)
    return Layers(colour, alpha, shade, (x0, y0), pieces_mask), hand_mask


def photograph(
    boards: list[SyntheticBoard],
    rng: np.random.Generator,
    options: PhotoOptions,
    model: CameraModel | None = None,
    props: list[SyntheticBoard] | None = None,
) -> Photo:
    """Photograph ``boards`` on a table with ``model`` (default: a random Pi camera); the truth lists each
    board's corners, state and cell labels. ``props``: things laid beside them (:func:`place_props`), in the
    photo and not in its truth."""
    model = model or random_camera(rng, options.size_wh)
    if options.stickers:
        boards = [with_stickers(b, i) for i, b in enumerate(boards)]
    placements = place_boards(boards, rng)
    scene = placements + (place_props(placements, props, rng) if props else [])
    pose = frame_scene(scene, model, rng, options.max_tilt_deg, options.min_tilt_deg)
    layers, hand_mask = _draw_layers(model, pose, scene, rng, options.hands)
    map_x, map_y = model.undistort_maps()
    map_x -= layers.origin[0]
    map_y -= layers.origin[1]

    def bend(layer: NDArray[np.float32], outside: float) -> NDArray[np.float32]:
        out = cv2.remap(
            layer, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=outside
        )
        return np.asarray(out, dtype=np.float32)

    # The table has no geometry worth bending, so it is drawn straight in the photo's own pixels.
    # Composited in place, as _sensor is.
    image = _table(options.size_wh, rng)
    image *= bend(layers.shade, 1.0)[..., None]
    image *= (1 - bend(layers.alpha, 0.0))[..., None]
    image += bend(layers.colour, 0.0)
    if options.effects:
        _light(image, rng)
    photo = np.clip(image, 0, 255, out=image).astype(np.uint8)
    if options.effects:
        photo = _sensor(photo, rng)
    quality = int(rng.integers(options.jpeg_quality[0], options.jpeg_quality[1] + 1))
    ok, jpeg = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    truth = _truth(model, pose, placements, layers, hand_mask, quality)
    return Photo(jpeg.tobytes(), truth)


# Where a mark's showing is sampled: its centre and rings of points out to its rim (fractions of its radius).
_MARK_RINGS = ((0.0, 1), (0.35, 8), (0.7, 16), (1.0, 24))
_MARK_POINTS = np.array(
    [
        (f * np.cos(t), f * np.sin(t))
        for f, n in _MARK_RINGS
        for t in np.linspace(0, 2 * np.pi, n, endpoint=False)
    ]
)


def _marks_shown(
    model: CameraModel, pose: Pose, placement: Placement, origin: tuple[int, int], cover: NDArray[np.float32]
) -> list[dict[str, Any]]:
    """Per mark of the board's drawing, its cell, label, where it lies and the share of it no piece or hand
    covers."""
    out = []
    h, w = cover.shape
    for mark in placement.board.drawing.marks:
        pts_mm = (mark.x_mm, mark.y_mm) + _MARK_POINTS * mark.radius_mm
        xy = np.round(_ideal_project(model, pose, _world_points(placement, pts_mm))).astype(int) - origin
        inside = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
        covered = np.zeros(len(xy), bool)
        covered[inside] = cover[xy[inside, 1], xy[inside, 0]] > 0.5
        out.append(
            {
                "cell": list(mark.cell),
                "label": mark.label,
                "centre_mm": [round(mark.x_mm, 2), round(mark.y_mm, 2)],
                "radius_mm": round(mark.radius_mm, 2),
                "shown": round(1.0 - float(covered.mean()), 3),
            }
        )
    return out


def _truth(
    model: CameraModel,
    pose: Pose,
    placements: list[Placement],
    layers: Layers,
    hand_mask: NDArray[np.float32],
    quality: int,
) -> dict[str, Any]:
    origin = layers.origin
    cover = np.maximum(layers.pieces, hand_mask)
    boards = []
    for placement in placements:
        board = placement.board
        profile = board.profile
        corners = model.project(pose.to_camera(_world_points(placement, profile.corners_mm)))
        hidden = []
        for region in profile.regions:
            for r, c in region.cells():
                centre = _ideal_project(
                    model, pose, _world_points(placement, [cell_center_mm(region, r, c)])
                )[0]
                x, y = round(centre[0]) - origin[0], round(centre[1]) - origin[1]
                if 0 <= y < hand_mask.shape[0] and 0 <= x < hand_mask.shape[1] and hand_mask[y, x] > 0.5:
                    hidden.append([region.name, r, c])
        boards.append(
            {
                "game": profile.game,
                "profile": profile.name,
                "art": board.pack,
                "corners_xy": np.round(corners, 3).tolist(),
                "hidden_cells": hidden,
                "marks": _marks_shown(model, pose, placement, origin, cover),
                "state": dict(board.state),
                "cells": {k: v for k, v in board.cells.items()},
                "board_to_image": board_homography(model, pose, placement).tolist(),
            }
        )
    return {
        "size_wh": list(model.size_wh),
        "camera": {"matrix": model.matrix.tolist(), "dist": model.dist.tolist()},
        "jpeg_quality": quality,
        "boards": boards,
    }
