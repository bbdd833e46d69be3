"""Benchmarks behind `tutor-app bench AREA`: they print numbers, they never assert."""
