"""The ONNX models, their model cards, the training code and the synthetic data generator."""
