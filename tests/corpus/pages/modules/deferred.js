order.push('deferred classic script');
