class CompilationCallbackHandler:
    def __init__(self):
        self.end_callbacks = []

    def register_end_callback(self, callback):
        self.end_callbacks.append(callback)
        return callback

    def remove_end_callback(self, callback):
        self.end_callbacks.remove(callback)

    def run_end_callbacks(self, args=None):
        for callback in self.end_callbacks:
            callback(args)


callback_handler = CompilationCallbackHandler()
