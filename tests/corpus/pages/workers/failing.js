throw new Error('the worker failed');
