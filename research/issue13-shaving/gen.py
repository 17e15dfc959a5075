import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'python'))
from serenity.networks import generate
for s in range(5):
    open(f'rw48_{s}.mlir','w').write(generate('randwire-stage', seed=s, nodes=48, channels=32, resolution=32))
    open(f'rd60_{s}.mlir','w').write(generate('random-dag', seed=s, nodes=60, branching=6))
    open(f'rd100_{s}.mlir','w').write(generate('random-dag', seed=s, nodes=100, branching=6))
