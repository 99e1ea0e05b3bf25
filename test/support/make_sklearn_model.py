"""Trains a tiny scikit-learn classifier for the model-serving specs and saves it with joblib.

Usage: make_sklearn_model.py OUT_PATH [--invert]. Class 1 when x0 + x1 > 1, else 0 (a logistic regression learns
it); with --invert the labels are swapped (class 0 when x0 + x1 > 1), so a second model answers the opposite.
"""
import sys

import joblib
from sklearn.linear_model import LogisticRegression

X = [[0, 0], [0.2, 0.1], [0.1, 0.4], [0.3, 0.3], [1, 1], [0.9, 0.8], [0.7, 0.9], [1.2, 0.6]]
y = [0, 0, 0, 0, 1, 1, 1, 1]
if "--invert" in sys.argv[2:]:
    y = [1 - label for label in y]
joblib.dump(LogisticRegression().fit(X, y), sys.argv[1])
print(sys.argv[1])
