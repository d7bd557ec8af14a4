"""The dashboard's UI kit, shared by the apps a person uses in the browser (``browser``,
``review``, ``receipts``, ``connectors``): the request type of their views, choice lists
rendered once, the template filters (``{% load ume %}``) and the context every page needs.
It reads the domain (``memory``); the domain never imports it (docs/architecture.md,
"Layers")."""
