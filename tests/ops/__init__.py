"""Tests of hosting: configuration, reminder timing, backups and restore, health check, Dockerfile."""
