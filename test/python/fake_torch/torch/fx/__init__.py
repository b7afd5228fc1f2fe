class Node:
    def __init__(self, name, module=None):
        self.name = name
        self.meta = {"nn_module_stack": {"k": (module, object)}} if module is not None else {}


class Graph:
    def __init__(self, nodes):
        self.nodes = nodes


class GraphModule:
    def __init__(self, compile_id, nodes):
        self.meta = {"dynamo_compile_id": compile_id}
        self.graph = Graph(nodes)
