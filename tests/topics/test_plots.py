import matplotlib.image
import numpy as np
import pytest
from typer.testing import CliRunner

from papersift.cli import app
from papersift.topics.classifier import WORDS_ONLY
from papersift.topics.overview import area_colors
from papersift.topics.predict import predict_all
from papersift.topics.projection import ProjectionError, map_points, neighbour_agreement, project


@pytest.fixture(scope="module")
def predicted_dir(topics_data_dir):
    predict_all(topics_data_dir, WORDS_ONLY)
    return topics_data_dir


def read_png(path):
    image = matplotlib.image.imread(path)
    return image[..., :3]


def assert_not_blank(image, min_colors=6):
    assert image.std() > 0.02
    colors = np.unique((image.reshape(-1, 3) * 255).astype(np.uint8), axis=0)
    assert len(colors) >= min_colors


def test_map_png_has_points_in_area_colors(predicted_dir, tmp_path):
    output = tmp_path / "map.png"
    result = CliRunner().invoke(app, ["plot", "map", "--data-dir", str(predicted_dir), "-o", str(output), "--json"])
    assert result.exit_code == 0, result.output
    image = read_png(output)
    assert image.shape[0] > 600 and image.shape[1] > 800
    assert_not_blank(image)
    # the largest areas' colors appear in the picture
    hex_colors = list(area_colors(["Deep Learning", "Applications"]).values())
    pixels = (image.reshape(-1, 3) * 255).astype(int)
    for hex_color in hex_colors:
        rgb = np.array([int(hex_color[i:i + 2], 16) for i in (1, 3, 5)])
        assert (np.abs(pixels - rgb).sum(axis=1) < 60).sum() > 20


def test_trends_png_and_svg(predicted_dir, tmp_path):
    png, svg = tmp_path / "trends.png", tmp_path / "trends.svg"
    for output in (png, svg):
        result = CliRunner().invoke(app, ["plot", "trends", "--data-dir", str(predicted_dir), "-o", str(output)])
        assert result.exit_code == 0, result.output
    image = read_png(png)
    assert image.shape[0] > 600 and image.shape[1] > 800
    assert_not_blank(image)
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text and text.count("<path") > 20


def test_bad_output_suffix(predicted_dir, tmp_path):
    result = CliRunner().invoke(app, ["plot", "trends", "--data-dir", str(predicted_dir), "-o", str(tmp_path / "t.gif")])
    assert result.exit_code != 0 and ".png or .svg" in result.stderr


def test_projection_is_cached_and_scaled(predicted_dir):
    first = map_points(predicted_dir, "pca")
    again = map_points(predicted_dir, "pca")
    assert first.paper_ids == again.paper_ids and np.array_equal(first.xy, again.xy)
    assert first.xy.shape == (len(first.paper_ids), 2)
    assert first.xy.min() >= 0 and first.xy.max() <= 1
    assert map_points(predicted_dir).method == "pca"  # auto: no UMAP cached for these vectors
    with pytest.raises(ProjectionError):
        map_points(predicted_dir, "tsne")


def test_neighbour_agreement_tells_structure_from_noise():
    rng = np.random.default_rng(0)
    labels = ["a"] * 100 + ["b"] * 100
    separated = np.vstack([rng.normal(0, 1, (100, 2)), rng.normal(8, 1, (100, 2))])
    assert neighbour_agreement(separated, labels) > 0.95
    assert neighbour_agreement(rng.normal(0, 1, (200, 2)), labels) < 0.7
    assert project(separated, "pca").shape == (200, 2)
