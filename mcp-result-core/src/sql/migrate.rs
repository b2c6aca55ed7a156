//! The migrations: the framework's, shipped in this crate (`migrations/{sqlite,postgres}/`),
//! and the application's own ([`AppMigration`]), run together by sqlx's migrator, tracked in
//! `_sqlx_migrations`, under its lock.

use std::borrow::Cow;

use sqlx::{
    error::BoxDynError,
    migrate::{Migration, MigrationSource, MigrationType, Migrator},
};

use super::{Dialect, SqlStores};
use crate::store::StoreError;

impl Dialect {
    fn migrations(self) -> Vec<Migration> {
        let (stores, quota, tasks, review, trail) = match self {
            Dialect::Sqlite => (
                include_str!("../../migrations/sqlite/20261130000001_stores.sql"),
                include_str!("../../migrations/sqlite/20261202000001_caller_bounds.sql"),
                include_str!("../../migrations/sqlite/20261203000001_tasks.sql"),
                include_str!("../../migrations/sqlite/20261215000001_approval_review.sql"),
                include_str!("../../migrations/sqlite/20261216000001_audit_approval_request.sql"),
            ),
            Dialect::Postgres => (
                include_str!("../../migrations/postgres/20261130000001_stores.sql"),
                include_str!("../../migrations/postgres/20261202000001_caller_bounds.sql"),
                include_str!("../../migrations/postgres/20261203000001_tasks.sql"),
                include_str!("../../migrations/postgres/20261215000001_approval_review.sql"),
                include_str!("../../migrations/postgres/20261216000001_audit_approval_request.sql"),
            ),
        };
        let migration = |version, name, sql| {
            Migration::new(
                version,
                Cow::Borrowed(name),
                MigrationType::Simple,
                Cow::Borrowed(sql),
                false,
            )
        };
        vec![
            migration(20261130000001, "mcp-result stores", stores),
            migration(20261202000001, "mcp-result caller bounds", quota),
            migration(20261203000001, "mcp-result tasks", tasks),
            migration(20261215000001, "mcp-result approval review", review),
            migration(20261216000001, "mcp-result audit approval requests", trail),
        ]
    }
}

/// The shipped migrations of one dialect, then the application's (ascending versions), as a
/// sqlx [`MigrationSource`].
#[derive(Debug)]
struct Shipped(Dialect, Vec<Migration>);

impl MigrationSource<'static> for Shipped {
    fn resolve(self) -> futures::future::BoxFuture<'static, Result<Vec<Migration>, BoxDynError>> {
        Box::pin(async move {
            let mut migrations = self.0.migrations();
            migrations.extend(self.1);
            Ok(migrations)
        })
    }
}

/// A migration of the application's own tables, run beside the framework's
/// ([`SqlStores::connect_with`], `State::connect_with`): tracked in the same sqlx table
/// (`_sqlx_migrations`), under the same lock, each once, in ascending `version` after the
/// framework's.
///
/// Its SQL goes through the `Any` driver like every statement of the stores: one text for
/// both databases where they agree (`CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT
/// NOT NULL)`), or a PostgreSQL text of its own ([`AppMigration::postgres`]). A migration
/// may hold several statements separated by `;`. Changing one that ran is refused at the
/// next start (sqlx compares checksums): add a new one instead.
///
/// ```
/// use mcp_result_core::sql::AppMigration;
///
/// const MIGRATIONS: &[AppMigration] = &[
///     AppMigration::new(1, "notes", "CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL)"),
///     AppMigration::new(2, "notes author", "ALTER TABLE notes ADD COLUMN author TEXT"),
/// ];
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppMigration {
    /// Its version: positive, unique among the application's, and none of the framework's
    /// (which are timestamps from `20261130000001` up: [`SqlStores::FRAMEWORK_VERSIONS`]).
    pub version: i64,
    /// What it does, as sqlx records it.
    pub description: &'static str,
    /// Its SQL on SQLite.
    pub sqlite: &'static str,
    /// Its SQL on PostgreSQL.
    pub postgres: &'static str,
}

impl AppMigration {
    /// Migration `version`, running `sql` on both databases.
    pub const fn new(version: i64, description: &'static str, sql: &'static str) -> Self {
        Self {
            version,
            description,
            sqlite: sql,
            postgres: sql,
        }
    }

    /// The same migration, running `sql` on PostgreSQL instead (types or clauses the two
    /// databases spell differently).
    #[must_use]
    pub const fn postgres(self, sql: &'static str) -> Self {
        Self {
            postgres: sql,
            ..self
        }
    }

    /// The application's `migrations` as sqlx migrations for `dialect`, sorted by version.
    ///
    /// # Errors
    /// A version that is not positive, is one of the framework's, or comes twice.
    fn resolve(
        migrations: &[AppMigration],
        dialect: Dialect,
    ) -> Result<Vec<Migration>, StoreError> {
        let mut sorted: Vec<&AppMigration> = migrations.iter().collect();
        sorted.sort_by_key(|m| m.version);
        let mut resolved = Vec::with_capacity(sorted.len());
        for (at, migration) in sorted.iter().enumerate() {
            let version = migration.version;
            let refused = if version <= 0 {
                Some("is not positive")
            } else if SqlStores::FRAMEWORK_VERSIONS.contains(&version) {
                Some("is one of mcp-result's own migrations")
            } else if at > 0 && sorted[at - 1].version == version {
                Some("comes twice")
            } else {
                None
            };
            if let Some(why) = refused {
                return Err(StoreError::Invalid(format!(
                    "SQL stores: the application's migration version {version} \
                     (\"{}\") {why}: give each migration its own positive version",
                    migration.description
                )));
            }
            let sql = match dialect {
                Dialect::Sqlite => migration.sqlite,
                Dialect::Postgres => migration.postgres,
            };
            resolved.push(Migration::new(
                version,
                Cow::Borrowed(migration.description),
                MigrationType::Simple,
                Cow::Borrowed(sql),
                false,
            ));
        }
        Ok(resolved)
    }
}

impl SqlStores {
    /// The versions of the framework's own migrations, which no [`AppMigration`] may use.
    pub const FRAMEWORK_VERSIONS: &'static [i64] = &[
        20261130000001,
        20261202000001,
        20261203000001,
        20261215000001,
        20261216000001,
    ];

    /// Runs the shipped migrations that have not run yet (under sqlx's migration lock, so
    /// instances starting together run each once).
    ///
    /// # Errors
    /// A migration fails, or one that ran was changed since.
    pub async fn migrate(&self) -> Result<(), StoreError> {
        self.migrate_with(&[]).await
    }

    /// Runs the shipped migrations, then the application's `migrations`, those that have not
    /// run yet, in one migrator run (one lock).
    ///
    /// # Errors
    /// An [`AppMigration`] whose version is refused (not positive, the framework's, twice);
    /// a migration fails, or one that ran was changed since.
    pub async fn migrate_with(&self, migrations: &[AppMigration]) -> Result<(), StoreError> {
        let app = AppMigration::resolve(migrations, self.db.dialect)?;
        let mut migrator = Migrator::new(Shipped(self.db.dialect, app))
            .await
            .map_err(|e| StoreError::Invalid(format!("SQL stores: migrations: {e}")))?;
        migrator.set_ignore_missing(true);
        migrator
            .run(&self.db.pool)
            .await
            .map_err(|e| StoreError::Invalid(format!("SQL stores: migrating: {e}")))
    }
}
