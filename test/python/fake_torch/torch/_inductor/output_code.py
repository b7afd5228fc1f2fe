class CompiledFxGraph:
    def __init__(self, key, source_code):
        self._fx_graph_cache_key = key
        self.source_code = source_code
