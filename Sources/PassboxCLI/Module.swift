// placeholder file replaced as the module grows
