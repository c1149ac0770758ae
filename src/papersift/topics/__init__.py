"""Topic taxonomy: predict `Area · Subarea` for papers without source labels.

Only ICLR 2024 papers carry the conference taxonomy. The pipeline reads as the files do:
dataset (labeled papers from the store) → features (tf-idf views, embeddings) →
classifier (per-view logistic regressions, averaged, hierarchical) → evaluate (5-fold CV
with baselines) → predict (predictions stored apart from the source labels) → plots.
"""
