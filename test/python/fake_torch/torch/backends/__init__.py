class _Switch:
    allow_tf32 = False


class cuda:
    matmul = _Switch()


cudnn = _Switch()
cudnn.allow_tf32 = True
