"""Zhuoji: an online room server for Guiyang Zhuoji mahjong."""
