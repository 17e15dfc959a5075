"""A fused-tiled conv chain (FFMT, Stahl et al.), written out as the tiling
pass would produce it: the kind of series-parallel graph the scheduler sees
after tiling.

The untiled network is ``layers`` valid 3x3 convs (each followed by ReLU) on a
pre-padded input of (resolution + 2 * layers) rows and columns, so the output
is resolution x resolution.  It is cut into a ``grid`` x ``grid`` tiling of the
output: tile (i, j) slices its input window (its output rectangle grown by
one row and column per conv on each side) and runs the whole chain on it;
the tiles are concatenated along W per row, and the rows along H.  Channel
widths are drawn from [cmin, cmax] with the seed, the same for every tile.
"""

import random

from . import network


@network("tiled-chain", "FFMT-tiled chain of valid 3x3 conv + ReLU layers: grid x grid tiles, each slicing its "
         "input window and running the chain, concatenated along W then H",
         channels=8, resolution=40, grid=5, layers=4, cmin=8, cmax=16)
def tiled_chain(b, channels, resolution, grid, layers, cmin, cmax, seed):
    if grid < 1 or layers < 1 or resolution % grid or not 1 <= cmin <= cmax:
        raise ValueError("tiled-chain needs grid >= 1, layers >= 1, resolution divisible by grid, "
                         "1 <= cmin <= cmax")
    rng = random.Random("tiled-chain/%d" % seed)
    widths = [rng.randint(cmin, cmax) for _ in range(layers)]
    halo = layers
    x = b.input((1, resolution + 2 * halo, resolution + 2 * halo, channels))
    tile = resolution // grid
    rows = []
    for i in range(grid):
        tiles = []
        for j in range(grid):
            b.push_scope("t%d_%d" % (i, j))
            h = b.slice(x, (0, i * tile, j * tile, 0), (1, tile + 2 * halo, tile + 2 * halo, channels))
            for k, width in enumerate(widths):
                h = b.conv2d(h, width, kernel=3, padding="valid", name="conv%d" % k)
                h = b.relu(h, name="relu%d" % k)
            tiles.append(h)
            b.pop_scope()
        b.push_scope("row%d" % i)
        rows.append(b.concat(tiles, axis=2))
        b.pop_scope()
    return b.concat(rows, axis=1, name="output")
