// Nothing: the floor of an import in a fresh process.
