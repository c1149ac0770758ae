"""The query encoder's per-channel int8 file (models/build.py quantize_query_encoder) against e5's
fp32: the query vectors and the rankings they give over fp32 passage vectors stay the same
within the tolerance docs/semantic.md states."""

from __future__ import annotations

import numpy as np
import pytest

from papersift.index.embeddings import Encoder
from papersift.models import DEFAULT_MODEL, QUERY_INT8, query_variant
from papersift.record import paper_from_dict, paper_text

pytestmark = pytest.mark.models

# Descriptive queries of the kind the known-item set has (10-40 words), written for this test.
QUERIES = [
    "a method that learns node representations by passing messages between neighbouring nodes of a graph",
    "training a language model to follow instructions with feedback from human preferences",
    "why do deep networks generalize even though they can fit random labels perfectly",
    "small perturbations of an image that fool a classifier and how to defend against them",
    "replacing recurrence with self-attention for sequence to sequence translation",
    "a diffusion process that gradually adds noise to images and a network that learns to reverse it",
    "compressing a large neural network into a smaller student by matching its soft predictions",
    "exploration in reinforcement learning with an intrinsic reward for visiting novel states",
    "learning word vectors from co-occurrence counts in a large text corpus",
    "batch statistics used to normalise layer inputs so that very deep networks train faster",
    "an agent that plays board games at superhuman level by self-play and tree search",
    "federated training across many phones without sending their data to a server",
    "estimating the uncertainty of a neural network's predictions with an ensemble or dropout",
    "pruning most of the weights of a trained network while keeping its accuracy",
    "generating realistic images with a generator and a discriminator trained against each other",
    "contrastive pretraining of image features by pulling together two augmented views of the same picture",
    "a benchmark to measure how well question answering systems reason over several documents",
    "variational inference with an encoder network and the reparameterization trick",
    "speeding up the attention of transformers on long documents with sparse or linear approximations",
    "learning to predict molecular properties from the three dimensional structure of the molecule",
]


@pytest.fixture(scope="module")
def encoders():
    assert query_variant(DEFAULT_MODEL) == QUERY_INT8  # `papersift models build` writes the file
    return (Encoder(DEFAULT_MODEL, variant="fp32", threads=1), Encoder(DEFAULT_MODEL, variant=QUERY_INT8, threads=1))


def test_query_vectors_stay_within_cosine_099_of_fp32(encoders):
    fp32, int8 = (encoder.encode_queries(QUERIES) for encoder in encoders)
    cosines = np.sum(fp32 * int8, axis=1)
    print("cosine mean", cosines.mean(), "min", cosines.min())
    assert cosines.min() >= 0.99
    assert cosines.mean() >= 0.995


def test_rankings_over_fp32_passages_stay_the_same_within_tolerance(encoders, sample_records):
    fp32, int8 = encoders
    papers = [paper_from_dict(record) for record in sample_records if record.get("abstract")][:150]
    passages = fp32.encode_passages([paper_text(paper) for paper in papers])
    top_fp32 = np.argsort(-(passages @ fp32.encode_queries(QUERIES).T), axis=0)[:10].T
    top_int8 = np.argsort(-(passages @ int8.encode_queries(QUERIES).T), axis=0)[:10].T
    overlap = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(top_fp32, top_int8)])
    same_first = np.mean(top_fp32[:, 0] == top_int8[:, 0])
    print("top-10 overlap", overlap, "same first", same_first)
    assert overlap >= 0.8
    assert same_first >= 0.85
