throw new RangeError('the harbour is closed');
