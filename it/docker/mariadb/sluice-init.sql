-- run at every start (init-file): the account the tests use over the network
CREATE USER IF NOT EXISTS 'root'@'%' IDENTIFIED BY 'sluice-test';
GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION;
