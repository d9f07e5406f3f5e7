"""What a person asks a model to do, with attention captured: text runs, coreference, generation,
translation, fill-in; and the typed results they return. Imports engine, data, architectures."""
