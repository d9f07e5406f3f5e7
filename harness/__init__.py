"""What the tests and the benchmark both drive the app with: pages opened in AppTest (app_test), a real
`streamlit run` and headless Chromium (server), many browser sessions at once (sessions), the memory soak (soak)
and the catalogue of hostile inputs with the messages each page must give (hostile_inputs).

tests/ and bench/ import this package and never each other; it imports the app's own packages, never tests or
bench. Not part of the app (the image leaves it out)."""
